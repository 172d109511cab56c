import "./search-zh.d44911a1f1.js";
import "./workbench.ca8944fb99.js";
import "./copy.35e15b8054.js";
