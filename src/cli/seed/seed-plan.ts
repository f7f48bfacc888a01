import type { EntityManager } from "typeorm";
import { readProjectFields, readProjectForms, type FieldDefinition, type FormDefinition } from "../../data/forms.data";
import { offerOfProductRow, readCategoriesOfProjects, readProductsOfProjects } from "../../data/products.data";
import { findProject, type ProjectRecord } from "../../data/projects.data";
import { readSeedReferences } from "../../data/seed.data";
import { isOfferedTo, type CategoryRules } from "../../domain/carts/cart-rules";
import { DomainError } from "../../domain/errors";
import { initialForms, type RegistrationLevel } from "../../domain/forms/form-rules";
import { PRODUCT_BASE_TYPES } from "../../entities";

// What every seeded registrant of a project may be given, read once before the first chunk.

export interface PlannedForm {
  id: number;
  fields: FieldDefinition[];
}

/** What a new registrant of the project gets, read once before the first chunk. */
export interface SeedPlan {
  project: ProjectRecord;
  /** Initial forms of a parent (or individual) and of a child registration. */
  initialForms: Record<RegistrationLevel, PlannedForm[]>;
  statusIds: number[];
  /** The statuses among them that exclude a registration. */
  excludingStatusIds: Set<number>;
  tagIds: number[];
  /** What a registrant of each level may buy, as add_product would allow it. */
  products: Record<RegistrationLevel, SeedProduct[]>;
  categories: Map<number, CategoryRules>;
}

export interface SeedProduct {
  id: number;
  priceCents: number;
  baseType: number;
  onlyOne: boolean;
  categoryId: number | null;
}

/** The plan of a seed run in the project; products are those offered at `now`. */
export async function readSeedPlan(em: EntityManager, groupId: number, now: Date): Promise<SeedPlan> {
  const project = await findProject(em, groupId);
  if (!project) throw new DomainError("NOT_FOUND", `project (group_id) ${groupId} does not exist`);
  const [forms, fields, { statuses, tagIds }, products, categories] = await Promise.all([
    readProjectForms(em, groupId),
    readProjectFields(em, groupId),
    readSeedReferences(em, groupId),
    readProductsOfProjects(em, [groupId]),
    readCategoriesOfProjects(em, [groupId]),
  ]);
  // What add_product would accept at `now`; discounts and session holders are not bought on their own.
  const buyable = (level: RegistrationLevel) =>
    products
      .filter(
        (product) =>
          isOfferedTo(offerOfProductRow(product), level, now) &&
          product.base_type !== PRODUCT_BASE_TYPES.discount &&
          product.base_type !== PRODUCT_BASE_TYPES.sessionHolder,
      )
      .map((product) => ({
        id: product.id,
        priceCents: product.price_cents,
        baseType: product.base_type,
        onlyOne: product.only_one,
        categoryId: product.category_id,
      }));
  const planned = (form: FormDefinition): PlannedForm => ({
    id: form.id,
    fields: fields.filter((field) => field.formId === form.id),
  });
  return {
    project,
    initialForms: {
      parent: initialForms(forms, "parent").map(planned),
      child: initialForms(forms, "child").map(planned),
    },
    statusIds: statuses.map((status) => status.id),
    excludingStatusIds: new Set(statuses.filter((status) => status.is_excluded).map((status) => status.id)),
    tagIds,
    products: { parent: buyable("parent"), child: buyable("child") },
    categories: new Map(
      categories.map((category) => [
        category.id,
        { quotaOrdered: category.quota_ordered, interchange: category.interchange },
      ]),
    ),
  };
}
