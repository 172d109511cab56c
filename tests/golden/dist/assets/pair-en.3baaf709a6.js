import "./search-en.306740793b.js";
import "./workbench.3d917d37b0.js";
import "./copy.35e15b8054.js";
