import { parse, type DocumentNode } from "graphql";

// How a page's examples are read (docs/testing.md, "Examples that run"): fenced blocks in page
// order; shell, console, Python and GraphQL blocks run, unless their fence says `no-run`; an
// answer is the json, text or plain block right after an example (blank lines, or one sentence
// ending with a colon, between them), or a `# {…}` comment that is JSON, after the command.

export interface Block {
  page: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** Words after the language in the fence's info string, e.g. `no-run`. */
  flags: string[];
  body: string;
  /** The text between the previous block's closing fence and this block's opening one. */
  before: string;
}

/** What a page shows an example answering. */
export type Answer = { kind: "json"; value: unknown; line: number } | { kind: "text"; text: string; line: number };

export type Step =
  | { kind: "shell"; block: Block; script: string; answer?: Answer }
  | { kind: "python"; block: Block; script: string; answer?: Answer }
  | { kind: "graphql"; block: Block; document: DocumentNode; variables?: Record<string, unknown>; answer?: Answer };

const SHELLS = new Set(["sh", "bash", "shell", "console"]);
const ANSWERS = new Set(["json", "text", ""]);
export const NO_RUN = "no-run";

export function readBlocks(page: string, text: string): Block[] {
  const lines = text.split("\n");
  const blocks: Block[] = [];
  let previousEnd = 0;
  for (let i = 0; i < lines.length; i += 1) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang, info] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j += 1) {
      const close = /^\s*(`{3,}|~{3,})\s*$/.exec(lines[j]);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) break;
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    blocks.push({
      page,
      line: i + 1,
      lang: lang.toLowerCase(),
      flags: info.split(/\s+/).filter(Boolean),
      body: body.join("\n"),
      before: lines.slice(previousEnd, i).join("\n"),
    });
    previousEnd = j + 1;
    i = j;
  }
  return blocks;
}

/** Whether nothing but blank lines, or one sentence ending with a colon, stands between two blocks. */
const adjacent = (between: string) => {
  const text = between.trim();
  return text === "" || (!text.includes("\n\n") && text.endsWith(":"));
};

function answerOf(block: Block | undefined): Answer | undefined {
  if (!block || !ANSWERS.has(block.lang) || block.flags.includes(NO_RUN) || !adjacent(block.before)) return undefined;
  if (block.lang === "json") return { kind: "json", value: JSON.parse(block.body), line: block.line };
  return { kind: "text", text: block.body, line: block.line };
}

const isGraphqlAnswer = (value: unknown) =>
  value !== null && typeof value === "object" && !Array.isArray(value) && ("data" in value || "errors" in value);

/** A comment's text when it is a JSON answer (`# {"status":"ready"}`), else null. */
function jsonComment(comment: string): unknown {
  const text = comment.trim();
  if (!/^[[{]/.test(text)) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * A shell block cut after every command whose answer is a JSON comment, each piece with that
 * answer; the last piece takes the answer block that follows, if any.
 */
function shellSteps(block: Block, following: Answer | undefined): Step[] {
  if (block.lang === "console") return consoleSteps(block);
  const steps: Step[] = [];
  let pending: string[] = [];
  const lines = block.body.split("\n");
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i];
    const trailing = /^(.*?\S)\s+#\s(.*)$/.exec(line);
    if (trailing && !line.trimStart().startsWith("#") && jsonComment(trailing[2]) !== null) {
      pending.push(trailing[1]);
      steps.push({ kind: "shell", block, script: pending.join("\n"), answer: jsonAnswer(block, i, trailing[2]) });
      pending = [];
      continue;
    }
    if (line.trimStart().startsWith("#") && pending.some((command) => command.trim() !== "")) {
      // Consecutive comment lines form one comment (a JSON answer may span several).
      let j = i;
      const comment: string[] = [];
      while (j < lines.length && lines[j].trimStart().startsWith("#"))
        comment.push(lines[j++].trimStart().replace(/^#\s?/, ""));
      if (jsonComment(comment.join("\n")) !== null) {
        steps.push({
          kind: "shell",
          block,
          script: pending.join("\n"),
          answer: jsonAnswer(block, i, comment.join("\n")),
        });
        pending = [];
        i = j - 1;
        continue;
      }
    }
    pending.push(line);
  }
  if (pending.some((line) => line.trim() !== "" && !line.trimStart().startsWith("#")) || steps.length === 0)
    steps.push({ kind: "shell", block, script: pending.join("\n"), answer: following });
  else if (following)
    throw new Error(`${block.page}:${following.line}: an answer after a block whose commands already show theirs`);
  return steps;
}

const jsonAnswer = (block: Block, index: number, text: string): Answer => ({
  kind: "json",
  value: JSON.parse(text.trim()),
  line: block.line + 1 + index,
});

/** `$ command` lines, each followed by its output. */
function consoleSteps(block: Block): Step[] {
  const steps: Step[] = [];
  const lines = block.body.split("\n");
  for (let i = 0; i < lines.length; i += 1) {
    if (!lines[i].startsWith("$ ")) {
      if (lines[i].trim() !== "")
        throw new Error(`${block.page}:${block.line + 1 + i}: console output without a $ command`);
      continue;
    }
    const command = lines[i].slice(2);
    const output: string[] = [];
    let j = i + 1;
    while (j < lines.length && !lines[j].startsWith("$ ")) output.push(lines[j++]);
    while (output.length > 0 && output[output.length - 1].trim() === "") output.pop();
    steps.push({
      kind: "shell",
      block,
      script: command,
      answer: output.length > 0 ? { kind: "text", text: output.join("\n"), line: block.line + 2 + i } : undefined,
    });
    i = j - 1;
  }
  return steps;
}

/** The page's examples, in page order. */
export function stepsOf(page: string, text: string): Step[] {
  const blocks = readBlocks(page, text);
  const steps: Step[] = [];
  for (let i = 0; i < blocks.length; i += 1) {
    const block = blocks[i];
    if (block.flags.includes(NO_RUN)) continue;
    if (SHELLS.has(block.lang)) {
      const answer = answerOf(blocks[i + 1]);
      steps.push(...shellSteps(block, answer));
      if (answer) i += 1;
    } else if (block.lang === "python") {
      const answer = answerOf(blocks[i + 1]);
      steps.push({ kind: "python", block, script: block.body, answer });
      if (answer) i += 1;
    } else if (block.lang === "graphql") {
      const document = parse(block.body);
      let variables: Record<string, unknown> | undefined;
      let answer = answerOf(blocks[i + 1]);
      if (answer?.kind === "json" && !isGraphqlAnswer(answer.value)) {
        variables = answer.value as Record<string, unknown>;
        i += 1;
        answer = answerOf(blocks[i + 1]);
      }
      if (answer) i += 1;
      steps.push({ kind: "graphql", block, document, variables, answer });
    }
  }
  return steps;
}
