import "./search-en.306740793b.js";
import "./workbench.5e8c23e5c4.js";
import "./copy.35e15b8054.js";
