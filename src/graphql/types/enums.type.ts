import { registerEnumType } from "type-graphql";
import { EVENT_KINDS, type EventType } from "../../domain/events/record-event";
import { PROBLEM_REASONS, type ProblemReason } from "../../domain/problems";
import { OUTBOX_STATES, type OutboxState } from "../../entities/outbox-email.entity";

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
  valuesConfig: {
    TEXT: { description: "One line of text." },
    TEXTAREA: { description: "Text of several lines." },
    EMAIL: { description: "An email address." },
    NUMBER: { description: "A number." },
    DATE: { description: "A date (YYYY-MM-DD)." },
    PHONE: { description: "A phone number." },
    SINGLE_CHOICE: { description: "One option value of the field's options." },
    MULTIPLE_CHOICE: { description: "Any option values of the field's options." },
  },
});
registerEnumType(FormAudienceEnum, {
  name: "FormAudience",
  description: "USER: filled by the registrant; ADMIN: internal, filled by staff.",
  valuesConfig: {
    USER: { description: "Filled by the registrant." },
    ADMIN: { description: "Internal, filled by staff; a registrant session does not see it." },
  },
});
registerEnumType(FormLevelEnum, {
  name: "FormLevel",
  description: "Which registrations of a family project get the form.",
  valuesConfig: {
    ALL: { description: "Every registration." },
    PARENT: { description: "Parents and individuals." },
    CHILD: { description: "Children of a family project." },
  },
});
registerEnumType(EmailOriginEnum, {
  name: "EmailOrigin",
  description: "API: recorded through the API; TRIGGER: written by a form trigger.",
  valuesConfig: {
    API: { description: "Recorded through the API (add_email, addEmail)." },
    TRIGGER: { description: "Written by a form trigger (send_email), delivered by the email worker." },
  },
});
registerEnumType(UserLevelEnum, {
  name: "UserLevel",
  description: "PARENT: parents and individuals (no connected_to); CHILD: children in a family project.",
  valuesConfig: {
    PARENT: { description: "Parents and individuals (no connected_to)." },
    CHILD: { description: "Children in a family project." },
  },
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

/** A domain string as a GraphQL enum value name: `user.status_changed` → `USER_STATUS_CHANGED`. */
const enumNameOf = (value: string): string => value.toUpperCase().replace(/[^A-Z0-9]+/g, "_");

/** The domain's event types (EVENT_KINDS), named USER_CREATED …; a new type appears here by itself. */
export const EventTypeEnum = Object.fromEntries(
  Object.keys(EVENT_KINDS).map((type) => [enumNameOf(type), type]),
) as Record<string, EventType>;

registerEnumType(EventTypeEnum, {
  name: "EventType",
  description:
    "What an event says changed; the value behind each is the webhook body's and REST feed's `type` (USER_STATUS_CHANGED is user.status_changed).",
  valuesConfig: Object.fromEntries(
    Object.entries(EVENT_KINDS).map(([type, kind]) => [
      enumNameOf(type),
      { description: `${type}: ${kind.description}` },
    ]),
  ),
});

const OUTBOX_STATE_DESCRIPTIONS: Record<OutboxState, string> = {
  queued: "Waiting for the email worker (first attempt or a retry).",
  sent: "Accepted by the mail server.",
  failed: "Given up after the last attempt.",
};

/** The email outbox's states (OUTBOX_STATES): QUEUED, SENT, FAILED. */
export const EmailDeliveryStatusEnum = Object.fromEntries(
  OUTBOX_STATES.map((state) => [enumNameOf(state), state]),
) as Record<string, OutboxState>;

registerEnumType(EmailDeliveryStatusEnum, {
  name: "EmailDeliveryStatus",
  description: "Where a trigger email stands with the email worker.",
  valuesConfig: Object.fromEntries(
    OUTBOX_STATES.map((state) => [enumNameOf(state), { description: OUTBOX_STATE_DESCRIPTIONS[state] }]),
  ),
});
