import "./search-en.306740793b.js";
import "./workbench.aa3afae7dd.js";
import "./copy.35e15b8054.js";
