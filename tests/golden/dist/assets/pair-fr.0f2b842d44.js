import "./search-fr.3ed8cf23a5.js";
import "./workbench.ca8944fb99.js";
import "./copy.35e15b8054.js";
