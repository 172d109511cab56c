import "./search-fr.3ed8cf23a5.js";
import "./workbench.3d917d37b0.js";
import "./copy.35e15b8054.js";
