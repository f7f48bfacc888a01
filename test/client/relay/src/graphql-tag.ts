// relay-compiler reads the `graphql` tagged templates of these files; no React or Relay runtime is
// needed to compile them, so the tag is a plain function that keeps the text (the type checker and
// the linter see ordinary TypeScript).
export const graphql = (strings: TemplateStringsArray): string => strings.join("");
