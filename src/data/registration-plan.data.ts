import type { EntityManager } from "typeorm";
import {
  FIELD_MEMBERS,
  FIELD_SHAPE,
  FORM_MEMBERS,
  FORM_SHAPE,
  toField,
  toForm,
  type FieldDefinition,
  type FormDefinition,
} from "./forms.data";
import { compareText, decodeJsonRows, decodeRows, jsonObjectsSql, selectRawRows, sqlPlaceholders } from "./sql-rows";
import { toTriggers, TRIGGER_MEMBERS, TRIGGER_SHAPE, type PendingTrigger } from "./triggers.data";

// Everything registering a person in a project needs to know of the project, read in one
// statement before the registration's transaction starts: who owns the project, whether it keeps
// families, the forms a new registration may start with, the fields the call's keys name, the
// mandatory fields of those forms (a submission checks them) and the triggers of those forms (a
// new registration has fired none). A project's definitions are inserted once and never changed,
// so the process keeps each plan it read (src/domain/projects/registration-plans.ts); reading
// them before the transaction keeps its locks short.

/** A project as registering into it sees it. */
export interface RegistrationPlan {
  organizationId: number;
  familySystem: boolean;
  /** The project's initial forms (of every level), in form order. */
  initialForms: FormDefinition[];
  /** Fields of the project named by the keys (identifier or mapped name), whichever form holds them. */
  namedFields: FieldDefinition[];
  /** Mandatory fields of the initial forms, in field order. */
  mandatoryFields: FieldDefinition[];
  /** Triggers of the initial forms, in trigger order. */
  triggers: PendingTrigger[];
  /** The forms those triggers add (add_form), by id: what a new registration's summary counts. */
  addedForms: FormDefinition[];
}

const SORTED = { sort: "int" } as const;

/** The project's registration plan; null when there is no such project. */
export async function readRegistrationPlan(
  em: EntityManager,
  projectId: number,
  keys: readonly string[],
): Promise<RegistrationPlan | null> {
  const list = sqlPlaceholders(keys.length);
  const named = keys.length === 0 ? "1 = 0" : `(f.id IN (${list}) OR f.name IN (${list}))`;
  // Initial forms of every level: which of them a registration of a level gets is the domain's rule
  // (initialForms in src/domain/forms/form-rules.ts).
  const initial = `fo.project_id = pr.id AND fo.initial = 1`;
  const sql = `SELECT pr.organization_id, pr.family_system,
       (SELECT ${jsonObjectsSql(em, [...FORM_MEMBERS, ["sort", "fo.sort_order"]])} FROM form fo WHERE ${initial}) AS forms,
       (SELECT ${jsonObjectsSql(em, FIELD_MEMBERS)} FROM field f WHERE f.project_id = pr.id AND ${named}) AS named_fields,
       (SELECT ${jsonObjectsSql(em, [...FIELD_MEMBERS, ["sort", "f.sort_order"]])}
          FROM field f JOIN form fo ON fo.id = f.form_id WHERE ${initial} AND f.mandatory = 1) AS mandatory_fields,
       (SELECT ${jsonObjectsSql(em, TRIGGER_MEMBERS)}
          FROM form_trigger t JOIN form fo ON fo.id = t.form_id LEFT JOIN product p ON p.id = t.product_id
         WHERE ${initial}) AS triggers,
       (SELECT ${jsonObjectsSql(em, FORM_MEMBERS)} FROM form fo
         WHERE fo.id IN (SELECT t.add_form_id FROM form_trigger t JOIN form tf ON tf.id = t.form_id
                          WHERE tf.project_id = pr.id AND tf.initial = 1)) AS added_forms
     FROM project pr WHERE pr.id = ?`;
  const [row] = await selectRawRows(em, sql, [...keys, ...keys, projectId]);
  if (!row) return null;
  const forms = decodeJsonRows({ ...FORM_SHAPE, ...SORTED }, row.forms, sql).sort(
    (a, b) => a.sort - b.sort || a.form_id - b.form_id,
  );
  const mandatory = decodeJsonRows({ ...FIELD_SHAPE, ...SORTED }, row.mandatory_fields, sql).sort(
    (a, b) => a.field_form_id - b.field_form_id || a.sort - b.sort || compareText(a.field_id, b.field_id),
  );
  const project = decodeRows({ organization_id: "int", family_system: "flag" }, [row], sql)[0];
  return {
    organizationId: project.organization_id,
    familySystem: project.family_system,
    initialForms: forms.map(toForm),
    namedFields: decodeJsonRows(FIELD_SHAPE, row.named_fields, sql).map(toField),
    mandatoryFields: mandatory.map(toField),
    triggers: toTriggers(decodeJsonRows(TRIGGER_SHAPE, row.triggers, sql)),
    addedForms: decodeJsonRows(FORM_SHAPE, row.added_forms, sql).map(toForm),
  };
}
