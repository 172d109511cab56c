import { start } from "./search.35ddd98fe4.js";
start({"index": "/assets/search-index.3659a9295f.json", "lang": "en", "label": "Search models and hardware", "placeholder": "Search: qwen 32b 4090", "results": "Search results", "none": "No results"});
