// The rule sentences of the parameters' TSDoc come from the runtime, which writes the same sentences on the
// help pages (runtime/help/words.ts).

export { columnNameText, ruleText } from "../../runtime/help/words.js";
