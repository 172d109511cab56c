import { start } from "./search.35ddd98fe4.js";
start({"index": "/assets/search-index.3659a9295f.json", "lang": "fr", "label": "Rechercher un modèle ou un matériel", "placeholder": "Rechercher : qwen 32b 4090", "results": "Résultats de la recherche", "none": "Aucun résultat"});
