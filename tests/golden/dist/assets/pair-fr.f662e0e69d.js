import "./search-fr.3ed8cf23a5.js";
import "./workbench.5e8c23e5c4.js";
import "./copy.35e15b8054.js";
