// The rule sentences of the parameters' TSDoc come from the runtime, which writes the same sentences on the
// help pages (runtime/server/help/words.ts).

export { columnNameText, ruleText } from "../../runtime/server/help/words.js";
