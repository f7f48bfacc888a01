import { readFieldsByKeys, readProjectForms, type FieldDefinition, type FormDefinition } from "../../data/forms.data";
import { findTagOfProject, type TagRecord } from "../../data/registrations.data";
import { findStatusOfProject, type StatusRecord } from "../../data/statuses.data";
import type { RequestContext } from "../context";
import { DomainError } from "../errors";
import { authorize } from "../authorize";
import { resolveOwnedProject } from "../group-scope";
import { formsVisibleTo } from "./project-catalogues";
import {
  readProjectCategories,
  productsVisibleTo,
  readProjectProducts,
  type CategoryRow,
  type ProductRow,
} from "../products/product-reads";

// One definition of a project (a form, field, status, tag, product or category) by its key, for
// refetching an object by its global id. Ownership is checked first: a project of another
// organization is FORBIDDEN, as everywhere; a key the project does not have is NOT_FOUND.

export type ProjectDefinitionKey =
  | { kind: "form"; formId: number }
  | { kind: "field"; identifier: string }
  | { kind: "status"; statusId: number }
  | { kind: "tag"; tagId: number }
  | { kind: "product"; pId: number }
  | { kind: "category"; catId: number };

export type ProjectDefinition =
  | { kind: "form"; form: FormDefinition }
  | { kind: "field"; field: FieldDefinition }
  | { kind: "status"; status: StatusRecord }
  | { kind: "tag"; tag: TagRecord }
  | { kind: "product"; product: ProductRow }
  | { kind: "category"; category: CategoryRow };

export async function getProjectDefinition(
  ctx: RequestContext,
  groupId: number,
  key: ProjectDefinitionKey,
): Promise<ProjectDefinition> {
  const notFound = () => new DomainError("NOT_FOUND", `project ${groupId} has no ${key.kind} with this key`);
  if (ctx.registrant) {
    const found = await registrantDefinition(ctx, groupId, key);
    if (!found) throw notFound();
    return found;
  }
  authorize(ctx, "read", { groupId });
  await resolveOwnedProject(ctx, groupId);
  const found = await readDefinition(ctx, groupId, key);
  if (!found) throw notFound();
  return found;
}

/**
 * What a registrant session may refetch of its own project: the forms it may fill and their
 * fields, the products it may add and the categories; statuses and tags are the
 * organization's internal catalogues.
 */
async function registrantDefinition(
  ctx: RequestContext,
  groupId: number,
  key: ProjectDefinitionKey,
): Promise<ProjectDefinition | null> {
  if (ctx.registrant?.groupId !== groupId || key.kind === "status" || key.kind === "tag") return null;
  const found = await readDefinition(ctx, groupId, key);
  if (found?.kind === "product") return productsVisibleTo(ctx, [found.product], new Date()).length ? found : null;
  if (found?.kind !== "form" && found?.kind !== "field") return found;
  const formId = found.kind === "form" ? found.form.id : found.field.formId;
  const forms = formsVisibleTo(ctx, await readProjectForms(ctx.em, groupId));
  return forms.some((form) => form.id === formId) ? found : null;
}

async function readDefinition(
  { em }: RequestContext,
  groupId: number,
  key: ProjectDefinitionKey,
): Promise<ProjectDefinition | null> {
  switch (key.kind) {
    case "form": {
      const form = (await readProjectForms(em, groupId)).find((candidate) => candidate.id === key.formId);
      return form ? { kind: "form", form } : null;
    }
    case "field": {
      const field = (await readFieldsByKeys(em, groupId, [key.identifier])).find((f) => f.id === key.identifier);
      return field ? { kind: "field", field } : null;
    }
    case "status": {
      const status = await findStatusOfProject(em, groupId, key.statusId);
      return status ? { kind: "status", status } : null;
    }
    case "tag": {
      const tag = await findTagOfProject(em, groupId, key.tagId);
      return tag ? { kind: "tag", tag } : null;
    }
    case "product": {
      const product = (await readProjectProducts(em, [groupId])).get(groupId)?.find((row) => row.id === key.pId);
      return product ? { kind: "product", product } : null;
    }
    case "category": {
      const category = (await readProjectCategories(em, [groupId])).get(groupId)?.find((row) => row.id === key.catId);
      return category ? { kind: "category", category } : null;
    }
  }
}
