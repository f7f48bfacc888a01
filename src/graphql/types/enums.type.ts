import { registerEnumType } from "type-graphql";
import { PROBLEM_REASONS, type ProblemReason } from "../../domain/problems";

// GraphQL enum values are SCREAMING_SNAKE_CASE; the values behind them are the domain's own
// strings, so resolvers pass domain rows through unchanged.

export enum FieldTypeEnum {
  TEXT = "text",
  TEXTAREA = "textarea",
  EMAIL = "email",
  NUMBER = "number",
  DATE = "date",
  PHONE = "phone",
  SINGLE_CHOICE = "single_choice",
  MULTIPLE_CHOICE = "multiple_choice",
}

export enum FormAudienceEnum {
  USER = "user",
  ADMIN = "admin",
}

export enum FormLevelEnum {
  ALL = "all",
  PARENT = "parent",
  CHILD = "child",
}

export enum EmailOriginEnum {
  API = "api",
  TRIGGER = "trigger",
}

export enum UserLevelEnum {
  PARENT = "parent",
  CHILD = "child",
}

registerEnumType(FieldTypeEnum, {
  name: "FieldType",
  description: "How a form field is answered; choice fields answer with option values.",
});
registerEnumType(FormAudienceEnum, {
  name: "FormAudience",
  description: "USER: filled by the registrant; ADMIN: internal, filled by staff.",
});
registerEnumType(FormLevelEnum, {
  name: "FormLevel",
  description: "Which registrations of a family project get the form.",
});
registerEnumType(EmailOriginEnum, {
  name: "EmailOrigin",
  description: "API: recorded through the API; TRIGGER: written by a form trigger.",
});
registerEnumType(UserLevelEnum, {
  name: "UserLevel",
  description: "PARENT: parents and individuals (no connected_to); CHILD: children in a family project.",
});

/** The domain's reason codes as they are: a new code appears here without a second list to keep. */
export const FieldProblemReasonEnum = Object.fromEntries(Object.keys(PROBLEM_REASONS).map((code) => [code, code])) as {
  [Code in ProblemReason]: Code;
};

registerEnumType(FieldProblemReasonEnum, {
  name: "FieldProblemReason",
  description:
    "Why a sent value was not written, or why a member of the input was refused; stable codes (docs/graphql-clients.md lists them).",
  valuesConfig: Object.fromEntries(
    Object.entries(PROBLEM_REASONS).map(([code, description]) => [code, { description }]),
  ) as Record<ProblemReason, { description: string }>,
});
