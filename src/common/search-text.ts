// The words of a text as the users search compares them (docs/graphql.md, "Search"): runs of
// letters, digits and underscores, in lower case and without accents. The search's words and the
// search documents are both made here, so that a document's text is already in the form every
// way of matching it compares: the full-text indexes (MySQL/MariaDB FULLTEXT, SQLite FTS5) and a
// test of the text itself (a word starts a word of the document when the text holds a space and
// that word) find the same registrations.

const WORD = /[\p{L}\p{N}_]+/gu;
const MARKS = /\p{M}+/gu;

/** Longer words are not in MySQL/MariaDB's FULLTEXT index (innodb_ft_max_token_size = 84). */
export const MAX_SEARCH_WORD_LENGTH = 84;

/** The words of `text`, folded: lower case, accents (combining marks after NFKD) removed. */
export function foldedWordsOf(text: string): string[] {
  return text.normalize("NFKD").replace(MARKS, "").toLowerCase().match(WORD) ?? [];
}

/**
 * A search document's text: its distinct folded words, each cut to MAX_SEARCH_WORD_LENGTH
 * characters (a searched word, never longer, starts the cut word exactly when it starts the whole
 * one), each after one space; "" without words.
 */
export function searchDocumentText(values: readonly (string | null)[]): string {
  const words = foldedWordsOf(values.filter((value) => value != null).join(" "));
  return [...new Set(words.map((word) => [...word].slice(0, MAX_SEARCH_WORD_LENGTH).join("")))]
    .map((word) => ` ${word}`)
    .join("");
}
