import { GraphQLJSONObject } from "graphql-scalars";
import { Field, InputType, Int } from "type-graphql";

// Inputs of the users mutations. They carry members as sent: the domain (users.service) checks
// every rule, so GraphQL and REST report the same problems.

const VALUES_DESCRIPTION =
  "Field values by field identifier (f_<form>_<n>) or mapped name: a string, a number, or a list of option values for a choice field.";

@InputType("CreateUserInput")
export class CreateUserInput {
  @Field(() => Int)
  groupId: number;

  @Field(() => Int, {
    nullable: true,
    description: "An existing person of your organization to register in this project too; omit for a new person.",
  })
  cloginId?: number | null;

  @Field(() => String, { nullable: true, description: "Defaults to mainEmail; unique in your organization." })
  username?: string | null;

  @Field(() => String, { nullable: true, description: "At least 6 characters; stored only as a slow hash." })
  password?: string | null;

  @Field(() => String, { nullable: true, description: "Required for a new person." })
  mainEmail?: string | null;

  @Field(() => String, { nullable: true })
  firstName?: string | null;

  @Field(() => String, { nullable: true })
  lastName?: string | null;

  @Field(() => String, { nullable: true })
  orgName?: string | null;

  @Field(() => GraphQLJSONObject, { nullable: true, description: VALUES_DESCRIPTION })
  values?: Record<string, unknown> | null;

  @Field(() => Boolean, {
    defaultValue: true,
    description: "Saving a value submits its form (and runs its triggers) unless false.",
  })
  submitForms: boolean;

  @Field(() => Boolean, { defaultValue: false, description: "Suppresses trigger emails only." })
  disableEmailSending: boolean;
}

@InputType("UpdateUserInput")
export class UpdateUserInput {
  @Field(() => Int)
  groupId: number;

  @Field(() => Int)
  cloginId: number;

  @Field(() => GraphQLJSONObject, { description: VALUES_DESCRIPTION })
  values: Record<string, unknown>;

  @Field(() => Boolean, {
    defaultValue: true,
    description: "Saving a value submits its form (and runs its triggers) unless false.",
  })
  submitForms: boolean;

  @Field(() => Boolean, { defaultValue: false, description: "Suppresses trigger emails only." })
  disableEmailSending: boolean;
}

@InputType("UpdateMeInput", { description: "The signed-in registrant's own values." })
export class UpdateMeInput {
  @Field(() => GraphQLJSONObject, { description: VALUES_DESCRIPTION })
  values: Record<string, unknown>;

  @Field(() => Boolean, {
    defaultValue: true,
    description: "Saving a value submits its form (and runs its triggers) unless false.",
  })
  submitForms: boolean;
}

@InputType("MarkFormsCompleteInput", { description: "Give exactly one of formIds and all." })
export class MarkFormsCompleteInput {
  @Field(() => Int)
  groupId: number;

  @Field(() => Int)
  cloginId: number;

  @Field(() => [Int], {
    nullable: true,
    description: "Legacy form ids (Form.formId); ids that are not forms of this user are reported in `skipped`.",
  })
  formIds?: number[] | null;

  @Field(() => Boolean, {
    nullable: true,
    description: "true: every form in the user's form set (read after `values` are saved).",
  })
  all?: boolean | null;

  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: `Saved first, in the same transaction. ${VALUES_DESCRIPTION}`,
  })
  values?: Record<string, unknown> | null;

  @Field(() => Boolean, {
    defaultValue: true,
    description: "Newly completed forms are submitted (triggers run) unless false.",
  })
  submitForms: boolean;

  @Field(() => Boolean, { defaultValue: false, description: "Suppresses trigger emails only." })
  disableEmailSending: boolean;
}

@InputType("EmailInput", { description: "An email sent elsewhere, to record in the user's history (nothing is sent)." })
export class EmailInput {
  @Field(() => String)
  from: string;

  @Field(() => String, { description: "Comma-separated addresses." })
  to: string;

  @Field(() => String)
  subject: string;

  @Field(() => String)
  body: string;

  @Field(() => String, { nullable: true, description: "Comma-separated addresses." })
  cc?: string | null;

  @Field(() => String, { nullable: true, description: "Comma-separated addresses." })
  bcc?: string | null;

  @Field(() => Int, { nullable: true, description: "An admin of your organization who may send in this project." })
  adminId?: number | null;
}

@InputType("AddEmailInput")
export class AddEmailInput {
  @Field(() => Int)
  groupId: number;

  @Field(() => Int)
  cloginId: number;

  @Field(() => [EmailInput], {
    description: "1 to 100 emails; a single object is accepted too (GraphQL list input coercion).",
  })
  emails: EmailInput[];
}
