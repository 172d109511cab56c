import "./search-fr.3ed8cf23a5.js";
import "./workbench.aa3afae7dd.js";
import "./copy.35e15b8054.js";
