import { start } from "./search.35ddd98fe4.js";
start({"index": "/assets/search-index.3659a9295f.json", "lang": "zh", "label": "搜索模型和硬件", "placeholder": "搜索：qwen 32b 4090", "results": "搜索结果", "none": "无结果"});
