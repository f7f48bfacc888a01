import type { EntityManager, EntityTarget, ObjectLiteral } from "typeorm";
import { In } from "typeorm";
import { insertRows } from "../db/insert-rows";
import { writeSearchDocuments } from "./person-search.data";
import {
  Admin,
  AdminComment,
  AdminProjectAccess,
  ApiAccount,
  CartLine,
  Field,
  FieldValue,
  Form,
  FormTrigger,
  Organization,
  Payment,
  Person,
  Product,
  ProductCategory,
  Project,
  Registration,
  RegistrationForm,
  RegistrationTag,
  Status,
  Tag,
} from "../entities";

// The writes of the fixture loader (regapi load, the demo data, the test fixtures): rows built
// from a checked fixture (src/fixtures/fixture-rows.ts), inserted with the fixture's own ids, and
// the look-up of ids a fixture would clash with.

/** An organization with its keys, projects and admins (each with the projects it may open). */
export interface OrganizationRows {
  organization: Partial<Organization>;
  apiAccounts: Partial<ApiAccount>[];
  projects: Partial<Project>[];
  admins: { admin: Partial<Admin>; access: Partial<AdminProjectAccess>[] }[];
}

export async function insertOrganizationRows(em: EntityManager, rows: OrganizationRows): Promise<void> {
  await em.insert(Organization, rows.organization);
  for (const account of rows.apiAccounts) await em.insert(ApiAccount, account);
  for (const project of rows.projects) await em.insert(Project, project);
  for (const { admin, access } of rows.admins) {
    await em.insert(Admin, admin);
    for (const row of access) await em.insert(AdminProjectAccess, row);
  }
}

/** What a project is set up with, in the order the rows reference each other. */
export interface ProjectSetupRows {
  tags: Partial<Tag>[];
  statuses: Partial<Status>[];
  categories: Partial<ProductCategory>[];
  /** Session holders before their sessions, so parent_product_id always points at a stored row. */
  products: Partial<Product>[];
  forms: Partial<Form>[];
  fields: Partial<Field>[];
  triggers: Partial<FormTrigger>[];
}

export async function insertProjectSetupRows(em: EntityManager, rows: ProjectSetupRows): Promise<void> {
  await insertRows(em, Tag, rows.tags);
  await insertRows(em, Status, rows.statuses);
  await insertRows(em, ProductCategory, rows.categories);
  await insertRows(em, Product, rows.products);
  await insertRows(em, Form, rows.forms);
  await insertRows(em, Field, rows.fields);
  await insertRows(em, FormTrigger, rows.triggers);
}

export async function insertFixturePerson(em: EntityManager, row: Partial<Person>): Promise<void> {
  await em.insert(Person, row);
}

/** Inserts a registration; returns its generated uid. */
export async function insertFixtureRegistration(em: EntityManager, row: Partial<Registration>): Promise<number> {
  const inserted = await em.insert(Registration, row);
  const uid = Number(inserted.identifiers[0].uid);
  await writeSearchDocuments(em, { uids: [uid], fresh: true });
  return uid;
}

/** What a registration holds besides its own row. */
export interface RegistrationDetailRows {
  forms: Partial<RegistrationForm>[];
  values: Partial<FieldValue>[];
  tags: Partial<RegistrationTag>[];
  comments: Partial<AdminComment>[];
  cart: Partial<CartLine>[];
  payments: Partial<Payment>[];
}

export async function insertRegistrationDetailRows(em: EntityManager, rows: RegistrationDetailRows): Promise<void> {
  await insertRows(em, RegistrationForm, rows.forms);
  await insertRows(em, FieldValue, rows.values);
  await insertRows(em, RegistrationTag, rows.tags);
  await insertRows(em, AdminComment, rows.comments);
  await insertRows(em, CartLine, rows.cart);
  await insertRows(em, Payment, rows.payments);
}

/** The tables whose ids a fixture gives, by the name a clash check uses. */
const ID_TABLES = {
  organization: Organization,
  apiAccount: ApiAccount,
  admin: Admin,
  project: Project,
  tag: Tag,
  status: Status,
  category: ProductCategory,
  product: Product,
  form: Form,
  field: Field,
  person: Person,
} satisfies Record<string, EntityTarget<ObjectLiteral>>;
export type FixtureIdTable = keyof typeof ID_TABLES;

/**
 * Which of `ids` the table already holds, read 500 at a time and stopping at the first chunk that
 * holds any (a clash is reported by its first instance); empty when none exists.
 */
export async function existingFixtureIds(
  em: EntityManager,
  table: FixtureIdTable,
  ids: readonly (number | string)[],
): Promise<Set<unknown>> {
  const target: EntityTarget<ObjectLiteral> = ID_TABLES[table];
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await em.find(target, {
      where: { id: In(ids.slice(i, i + 500)) },
      select: { id: true } as never,
    });
    if (rows.length > 0) return new Set(rows.map((row) => row.id));
  }
  return new Set();
}
