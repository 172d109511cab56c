import "./search-zh.d44911a1f1.js";
import "./workbench.5e8c23e5c4.js";
import "./copy.35e15b8054.js";
