import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from "graphql";

/** Whether the current field's selection asks for `name` directly (through fragments too), so costly parts are read only when asked. */
export function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  const visit = (set: SelectionSetNode | undefined): boolean =>
    !!set &&
    set.selections.some((selection) => {
      if (selection.kind === Kind.FIELD) return selection.name.value === name;
      if (selection.kind === Kind.INLINE_FRAGMENT) return visit(selection.selectionSet);
      return visit(info.fragments[selection.name.value]?.selectionSet);
    });
  return info.fieldNodes.some((node) => visit(node.selectionSet));
}

/** Whether the current field's selection reaches `path` (e.g. ["form", "fields"]), through fragments too. */
export function selectsPath(info: GraphQLResolveInfo, path: readonly string[]): boolean {
  const visit = (set: SelectionSetNode | undefined, depth: number): boolean =>
    !!set &&
    set.selections.some((selection) => {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value !== path[depth]) return false;
        return depth === path.length - 1 || visit(selection.selectionSet, depth + 1);
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) return visit(selection.selectionSet, depth);
      return visit(info.fragments[selection.name.value]?.selectionSet, depth);
    });
  return info.fieldNodes.some((node) => visit(node.selectionSet, 0));
}

/** The names of the fields selected at the end of `path` (through fragments), or null when the path is not selected. */
export function selectedNamesAt(info: GraphQLResolveInfo, path: readonly string[]): Set<string> | null {
  let found: Set<string> | null = null;
  const collect = (set: SelectionSetNode | undefined, depth: number): void => {
    if (!set) return;
    for (const selection of set.selections) {
      if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet, depth);
      else if (selection.kind === Kind.FRAGMENT_SPREAD)
        collect(info.fragments[selection.name.value]?.selectionSet, depth);
      else if (depth === path.length) (found ??= new Set()).add(selection.name.value);
      else if (selection.name.value === path[depth]) {
        if (depth === path.length - 1) found ??= new Set();
        collect(selection.selectionSet, depth + 1);
      }
    }
  };
  for (const node of info.fieldNodes) collect(node.selectionSet, 0);
  return found;
}
