import { foldedWordsOf, MAX_SEARCH_WORD_LENGTH } from "../../common/search-text";
import { validationFailed } from "../errors";

// The users search's matching rule (docs/graphql.md, "Search"), once for both databases: the
// search is split into words, and a user matches when every word starts a word of their first
// name, last name, username or main email. A word is a run of letters, digits and underscores,
// compared without case and accents: the search's words are folded as the documents' text is
// (src/common/search-text.ts).

/** Shorter words are not in MySQL/MariaDB's FULLTEXT index (innodb_ft_min_token_size = 3). */
export const MIN_SEARCH_WORD_LENGTH = 3;

export { MAX_SEARCH_WORD_LENGTH };

/**
 * The words a search looks for (folded, distinct), or null when the search is blank (it then
 * does not filter). Words shorter than MIN_SEARCH_WORD_LENGTH are left out; a search with no
 * other word, or with a word longer than MAX_SEARCH_WORD_LENGTH, is refused (VALIDATION_FAILED
 * at `path`), since neither database could answer it the same way.
 */
export function searchWordsOf(search: string | null | undefined, path: readonly string[]): string[] | null {
  if (search == null || search.trim() === "") return null;
  const words = foldedWordsOf(search);
  const lengthOf = (word: string) => [...word].length;
  const tooLong = words.find((word) => lengthOf(word) > MAX_SEARCH_WORD_LENGTH);
  if (tooLong !== undefined) {
    throw validationFailed([
      {
        path: [...path],
        reason: "TOO_LONG",
        value: search,
        message: `has a word longer than ${MAX_SEARCH_WORD_LENGTH} characters, which no name or email is searched for`,
      },
    ]);
  }
  const searched = [...new Set(words.filter((word) => lengthOf(word) >= MIN_SEARCH_WORD_LENGTH))];
  if (searched.length === 0) {
    throw validationFailed([
      {
        path: [...path],
        reason: "TOO_SHORT",
        value: search,
        message: `needs a word of at least ${MIN_SEARCH_WORD_LENGTH} letters or digits (shorter words are not searched)`,
      },
    ]);
  }
  return searched;
}
