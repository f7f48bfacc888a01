import { GraphQLJSONObject } from "graphql-scalars";
import { Field, InputType, Int } from "type-graphql";
import { RegistrantTargetInput } from "./registrant-target.input";

// Inputs of the users mutations. They carry members as sent: the domain (users.service) checks
// every rule, so GraphQL and REST report the same problems.

const VALUES_DESCRIPTION =
  "Field values by field identifier (f_<form>_<n>) or mapped name: a string, a number, or a list of option values for a choice field.";

@InputType("CreateUserInput", {
  description: "A new registration (users create): the person's fields, form values and options.",
})
export class CreateUserInput {
  @Field(() => Int, { description: "The project (group_id)." })
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

  @Field(() => String, { description: "The person's first name.", nullable: true })
  firstName?: string | null;

  @Field(() => String, { description: "The person's last name.", nullable: true })
  lastName?: string | null;

  @Field(() => String, { description: "The person's organization name.", nullable: true })
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

@InputType("UpdateUserInput", { description: "Values to write to one user (users update), with its options." })
export class UpdateUserInput extends RegistrantTargetInput {
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
export class MarkFormsCompleteInput extends RegistrantTargetInput {
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
  @Field(() => String, { description: "The sender's address." })
  from: string;

  @Field(() => String, { description: "Comma-separated addresses." })
  to: string;

  @Field(() => String, { description: "The email's subject." })
  subject: string;

  @Field(() => String, { description: "The email's body as sent." })
  body: string;

  @Field(() => String, { nullable: true, description: "Comma-separated addresses." })
  cc?: string | null;

  @Field(() => String, { nullable: true, description: "Comma-separated addresses." })
  bcc?: string | null;

  @Field(() => Int, { nullable: true, description: "An admin of your organization who may send in this project." })
  adminId?: number | null;
}

@InputType("AddEmailInput", {
  description: "Emails sent outside regapi, to record in one user's history (users add_email).",
})
export class AddEmailInput extends RegistrantTargetInput {
  @Field(() => [EmailInput], {
    description: "1 to 100 emails; a single object is accepted too (GraphQL list input coercion).",
  })
  emails: EmailInput[];
}
