import type { EntityManager } from "typeorm";
import {
  readFamilies,
  readFieldsOfForms,
  readFormSetRows,
  readProjectFieldsByKeys,
  readStoredAnswers,
} from "../../data/user-details.data";
import { offerOfProductRow, readProductsOfProjects } from "../../data/products.data";
import { groupBy } from "../../common/group-by";
import { isOfferedTo } from "../carts/cart-rules";
import { registrationLevel } from "../forms/form-rules";
import { readOwnedSummary } from "../../data/user-summary.data";
import { readEmailHistory, type EmailHistoryEntry } from "../../data/email-history.data";
import type { FieldType } from "../../entities";
import { answerIsEmpty, decodeAnswer, parseChoiceOptions, type FieldAnswer } from "../forms/field-value-codec";
import { parseCommand, type CommandDraft } from "../commands/parse-command";
import type { RequestContext } from "../context";
import { UserInfoCommand } from "./read-commands";
import { userNotFound } from "../errors";
import { authorize } from "../authorize";
import { notOwnedProject } from "../group-scope";
import { inTransaction } from "../transaction";
import { loadUserSummaries, type UserSummary } from "./user-summary";
import {
  NO_UTM,
  readCartOf,
  readPaymentsOf,
  readUtmOf,
  type CartLineDetail,
  type PaymentDetail,
  type UtmDetail,
} from "./user-account-details";
import { readDetailSelection, type DetailSelection } from "./user-detail-selection";

// What users get_info reads (contract §11), for one user or a whole get_user_list page: every
// selector is one or two statements for all the users together, whatever the number of fields,
// forms, children, cart lines or payments. Rules (which products a user may add, which fields
// are missing) live here; the transports only present the result. Reading the `doc`'s selectors
// and the cart, payment and UTM reads are modules of their own, named here for the transports.

export {
  MAX_SELECTORS,
  readDetailSelection,
  SYSTEM_SELECTORS,
  type DetailSelection,
  type SystemSelector,
} from "./user-detail-selection";
export {
  readCartOf,
  readPaymentsOf,
  readUtmOf,
  type CartLineDetail,
  type PaymentDetail,
  type UtmDetail,
} from "./user-account-details";

export interface DetailField {
  identifier: string;
  formId: number;
  mappedName: string | null;
  label: string;
  type: FieldType;
  mandatory: boolean;
  options: string[];
}

export interface DetailForm {
  formId: number;
  name: string;
  mandatory: boolean;
  audience: string;
  completed: boolean;
  completedAt: Date | null;
}

export interface OfferedProduct {
  productId: number;
  name: string;
  priceCents: number;
  baseType: number;
  level: string;
  categoryId: number | null;
  onlyOne: boolean;
  cartLineId: number | null;
}
/** One user's answers, each present only when asked for. */
export interface UserDetails {
  /** Field key as sent → value (null when empty); keys that cannot be read are absent (see notices). */
  fieldValues: Map<string, FieldAnswer | null>;
  allFields?: {
    values: Map<string, FieldAnswer | null>;
    index: DetailField[];
    /** Empty mandatory fields of registrant forms, in form and field order. */
    errors: DetailField[];
  };
  forms?: DetailForm[];
  family?: { parent: UserSummary; children: UserSummary[] };
  products?: OfferedProduct[];
  cart?: CartLineDetail[];
  payments?: PaymentDetail[];
  utm?: UtmDetail;
  /** The email history, oldest first; trigger emails with their delivery status. */
  emails?: EmailHistoryEntry[];
  /** Per-user problems (a field the user's forms do not hold). */
  notices: string[];
}

export interface DetailTarget {
  uid: number;
  groupId: number;
  cloginId: number;
  parentCloginId: number | null;
}

const toField = (row: {
  field_id: string;
  form_id: number;
  name: string | null;
  label: string;
  field_type: string;
  mandatory: boolean;
  choice_options: string | null;
}): DetailField => ({
  identifier: row.field_id,
  formId: row.form_id,
  mappedName: row.name,
  label: row.label,
  type: row.field_type as FieldType,
  mandatory: row.mandatory,
  options: parseChoiceOptions(row.choice_options),
});

/**
 * Reads the selection for users of one project. The statement count depends only on which
 * selectors are asked for.
 */
export async function readUserDetails(
  em: EntityManager,
  groupId: number,
  users: readonly DetailTarget[],
  selection: DetailSelection,
): Promise<Map<number, UserDetails>> {
  const uids = users.map((user) => user.uid);
  const details = new Map<number, UserDetails>(
    users.map((user) => [user.uid, { fieldValues: new Map(), notices: [] }]),
  );
  const wantsFields = selection.fieldKeys.length > 0 || selection.system.has("_allfields");
  const needsFormSets = wantsFields || selection.system.has("_userforms");

  if (needsFormSets) {
    const formSets = groupBy(await readFormSetRows(em, uids), (row) => row.registration_id);
    const formIds = [...new Set([...formSets.values()].flat().map((row) => row.form_id))];
    const fieldsByForm = wantsFields
      ? groupBy((await readFieldsOfForms(em, formIds)).map(toField), (f) => f.formId)
      : new Map();
    const answers = wantsFields ? groupBy(await readStoredAnswers(em, uids), (row) => row.registration_id) : new Map();
    const projectFields =
      selection.fieldKeys.length > 0
        ? (await readProjectFieldsByKeys(em, groupId, selection.fieldKeys)).map(toField)
        : [];
    for (const user of users) {
      const detail = details.get(user.uid)!;
      const forms = formSets.get(user.uid) ?? [];
      if (selection.system.has("_userforms")) {
        detail.forms = forms.map((row) => ({
          formId: row.form_id,
          name: row.form_name,
          mandatory: row.mandatory,
          audience: row.audience,
          completed: row.completed,
          completedAt: row.completed_at,
        }));
      }
      if (!wantsFields) continue;
      const fields: DetailField[] = forms.flatMap((row) => fieldsByForm.get(row.form_id) ?? []);
      const stored = new Map<string, string>(
        (answers.get(user.uid) ?? []).map((row: { field_id: string; value: string }) => [row.field_id, row.value]),
      );
      const valueOf = (field: DetailField): FieldAnswer | null => {
        const raw = stored.get(field.identifier);
        if (raw === undefined) return null;
        const answer = decodeAnswer(field.type, raw);
        return answerIsEmpty(answer) ? null : answer;
      };
      for (const key of selection.fieldKeys) {
        const field = fields.find((f) => f.identifier === key) ?? fields.find((f) => f.mappedName === key);
        if (field) detail.fieldValues.set(key, valueOf(field));
        else if (projectFields.some((f) => f.identifier === key || f.mappedName === key)) {
          detail.notices.push(`${key}: not read; its form is not in the user's form set.`);
        } else detail.notices.push(`${key}: not read; no field of this project has that identifier or mapped name.`);
      }
      if (selection.system.has("_allfields")) {
        const registrantForms = new Set(forms.filter((row) => row.audience !== "admin").map((row) => row.form_id));
        detail.allFields = {
          values: new Map(fields.map((field) => [field.identifier, valueOf(field)])),
          index: fields,
          errors: fields.filter(
            (field) =>
              field.mandatory && registrantForms.has(field.formId) && answerIsEmpty(valueOf(field) ?? undefined),
          ),
        };
      }
    }
  }

  if (selection.system.has("_family")) {
    const headOf = (user: DetailTarget) => user.parentCloginId ?? user.cloginId;
    const members = await readFamilies(em, groupId, [...new Set(users.map(headOf))]);
    const summaries = await loadUserSummaries(
      em,
      members.map((m) => m.uid),
    );
    for (const user of users) {
      const head = headOf(user);
      const parentRow = members.find((m) => m.person_id === head && m.connected_to === null);
      const parent = parentRow ? summaries.get(parentRow.uid) : undefined;
      if (!parent) continue;
      const children = members
        .filter((m) => m.connected_to === head)
        .map((m) => summaries.get(m.uid))
        .filter((s): s is UserSummary => s !== undefined);
      details.get(user.uid)!.family = { parent, children };
    }
  }

  const wantsCart = selection.system.has("_usercart") || selection.system.has("_userproducts");
  const cart = wantsCart ? await readCartOf(em, uids) : new Map<number, CartLineDetail[]>();
  if (selection.system.has("_usercart")) {
    for (const user of users) details.get(user.uid)!.cart = cart.get(user.uid) ?? [];
  }
  if (selection.system.has("_userproducts")) {
    const products = await readProductsOfProjects(em, [groupId]);
    const now = new Date();
    for (const user of users) {
      const lines = cart.get(user.uid) ?? [];
      const level = registrationLevel(user.parentCloginId);
      details.get(user.uid)!.products = products
        .filter((product) => isOfferedTo(offerOfProductRow(product), level, now))
        .map((product) => ({
          productId: product.id,
          name: product.name,
          priceCents: product.price_cents,
          baseType: product.base_type,
          level: product.level,
          categoryId: product.category_id,
          onlyOne: product.only_one,
          cartLineId: lines.find((line) => line.productId === product.id)?.cartLineId ?? null,
        }));
    }
  }
  if (selection.system.has("_userpayments")) {
    const payments = await readPaymentsOf(em, uids);
    for (const user of users) details.get(user.uid)!.payments = payments.get(user.uid) ?? [];
  }
  if (selection.system.has("_utm")) {
    const utm = await readUtmOf(em, uids);
    for (const user of users) details.get(user.uid)!.utm = utm.get(user.uid) ?? NO_UTM;
  }
  if (selection.system.has("_useremails")) {
    const history = await readEmailHistory(em, uids);
    for (const user of users) details.get(user.uid)!.emails = history.get(user.uid) ?? [];
  }
  return details;
}

export interface UserInfoOutcome {
  /** The keys asked for, in the order sent (the answer's doc follows it). */
  keys: string[];
  summary: UserSummary;
  details: UserDetails;
  /** Key problems first, then the user's own. */
  notices: string[];
}

/** users get_info: the user's summary and what `selection` asks for. Throws FORBIDDEN or USER_NOT_FOUND. */
export async function getUserInfo(
  ctx: RequestContext,
  draft: CommandDraft<typeof UserInfoCommand>,
): Promise<UserInfoOutcome> {
  const parsed = parseCommand(UserInfoCommand, draft);
  const cmd = { ...parsed, selection: readDetailSelection(parsed.selectors) };
  const { organizationId } = authorize(ctx, "read", { groupId: cmd.groupId });
  const read = async ({ em }: RequestContext): Promise<UserInfoOutcome> => {
    // Ownership, registration and summary in one statement.
    const found = await readOwnedSummary(em, organizationId, cmd.groupId, cmd.cloginId);
    if (!found.owned) throw notOwnedProject(cmd.groupId);
    if (!found.summary) throw userNotFound(cmd.cloginId, cmd.groupId);
    const summary = found.summary;
    const target = {
      uid: summary.uid,
      groupId: summary.groupId,
      cloginId: summary.cloginId,
      parentCloginId: summary.parentCloginId,
    };
    const details = (await readUserDetails(em, cmd.groupId, [target], cmd.selection)).get(summary.uid)!;
    return {
      keys: Object.keys(cmd.selectors),
      summary,
      details,
      notices: [...cmd.selection.notices, ...details.notices],
    };
  };
  // Details are further statements: they and the summary then share one transaction.
  return Object.keys(cmd.selectors).length > 0 ? inTransaction(ctx, read) : read(ctx);
}
