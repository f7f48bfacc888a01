// Choice matching, contract §4: a sent answer is first compared with the option values as
// they are; only when none is equal are both sides compared again without HTML and lower-cased.

const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
  "&nbsp;": " ",
};

/** Text without tags (and with the few common entities decoded), as a browser would show it. */
export function stripHtml(text: string): string {
  return text.replace(/<[^>]*>/g, "").replace(/&(?:amp|lt|gt|quot|#39|nbsp);/g, (entity) => ENTITIES[entity]);
}

const loose = (text: string) => stripHtml(text).toLowerCase();

export interface ChoiceMatch {
  /** The options' own values, each once, in the options' order. */
  matched: string[];
  /** Sent strings that matched no option, as sent. */
  unmatched: string[];
}

export function matchChoiceAnswers(sent: readonly string[], options: readonly string[]): ChoiceMatch {
  const looseOptions = options.map(loose);
  const chosen = new Set<number>();
  const unmatched: string[] = [];
  for (const answer of sent) {
    let index = options.indexOf(answer);
    if (index < 0) index = looseOptions.indexOf(loose(answer));
    if (index < 0) unmatched.push(answer);
    else chosen.add(index);
  }
  return { matched: [...chosen].sort((a, b) => a - b).map((i) => options[i]), unmatched };
}

/** A choice option as a form shows it: its stored value, that value as plain text, and as stored. */
export interface ChoiceOption {
  value: string;
  label: string;
  labelHtml: string;
}

/**
 * The options of a choice field for display. The stored option is its own value and label (the
 * legacy forms keep one string, HTML allowed); the plain label is what matching compares too, so
 * a client may send either back.
 */
export function choiceOptionsOf(options: readonly string[]): ChoiceOption[] {
  return options.map((option) => ({ value: option, label: stripHtml(option), labelHtml: option }));
}
