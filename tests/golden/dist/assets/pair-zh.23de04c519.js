import "./search-zh.d44911a1f1.js";
import "./workbench.3d917d37b0.js";
import "./copy.35e15b8054.js";
