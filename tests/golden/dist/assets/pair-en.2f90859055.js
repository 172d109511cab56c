import "./search-en.306740793b.js";
import "./workbench.ca8944fb99.js";
import "./copy.35e15b8054.js";
