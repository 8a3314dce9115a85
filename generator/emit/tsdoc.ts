// TSDoc comments from spec text, for every emitter that writes generated TypeScript (types, client, server,
// model, credentials): paragraphs kept, lines wrapped at DOC_WIDTH, and nothing in the text able to end
// the comment.

import type { JSDocStructure, OptionalKind } from "ts-morph";

/** Width of the wrapped TSDoc lines. */
const DOC_WIDTH = 100;

/** TSDoc from spec text: paragraphs kept, lines wrapped, optional tags such as defaultValue. */
export function docs(
  text: string,
  tags: readonly { tagName: string; text: string }[] = [],
): OptionalKind<JSDocStructure>[] {
  const description = commentSafe(text)
    .split("\n\n")
    .map((paragraph) => wrap(paragraph, DOC_WIDTH))
    .join("\n\n");
  return [
    {
      description,
      tags: tags.map((tag) => ({ tagName: tag.tagName, text: wrap(commentSafe(tag.text), DOC_WIDTH) })),
    },
  ];
}

/**
 * Spec text made safe inside a block comment: a star followed by a slash would end the comment, so a
 * backslash goes between them. Nothing else in a doc can end a comment or reach the code.
 */
function commentSafe(text: string): string {
  return text.replaceAll("*/", "*\\/");
}

/** Greedy word wrap; TSDoc lines stay readable without depending on the formatter. */
function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines.join("\n");
}
