import "./search-zh.d44911a1f1.js";
import "./workbench.aa3afae7dd.js";
import "./copy.35e15b8054.js";
