import { Field, Int } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import { GraphQLDateTime } from "graphql-scalars";
import { FieldTypeEnum, FormAudienceEnum, FormLevelEnum } from "./enums.type";
import { Node } from "../nodes/node.interface";

@GraphqlObjectType("FormChoice", { description: "An option of a choice field." })
export class FormChoiceType {
  @Field(() => String, { description: "What an answer holds and updateUser/updateMe accept (as stored)." })
  value: string;

  @Field(() => String, { description: "The label as plain text: HTML tags stripped, common entities decoded." })
  label: string;

  @Field(() => String, { description: "The label as stored, HTML allowed (the legacy forms show it so)." })
  labelHtml: string;
}

@GraphqlObjectType("FormField", { description: "A form input.", implements: Node })
export class FormFieldType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => String, { description: "The wire identifier f_<form>_<n>; usable as a key in `values`." })
  identifier: string;

  @Field(() => String, { nullable: true, description: "The optional mapped name, also usable as a key in `values`." })
  mappedName: string | null;

  @Field(() => String, { description: "The label shown with the field." })
  label: string;

  @Field(() => FieldTypeEnum, { description: "How the field is answered." })
  type: FieldTypeEnum;

  @Field(() => Boolean, { description: "An answer is required to complete the form." })
  mandatory: boolean;

  @Field(() => [String], { description: "Option values of a choice field; empty for other types." })
  options: string[];

  @Field(() => [FormChoiceType], {
    description: "The options of a choice field with plain-text and HTML labels; empty for other types.",
  })
  choices: FormChoiceType[];
}

@GraphqlObjectType("Form", {
  description: "A form of a project: its fields, who fills it and which registrations get it.",
  implements: Node,
})
export class FormType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  /** The form's project (not exposed; its fields' ids need it). */
  groupId: number;

  @Field(() => Int, { description: "The legacy form id (as in markFormsComplete's formIds and f_<form>_<n>)." })
  formId: number;

  @Field(() => String, { description: "The form's name." })
  name: string;

  @Field(() => Boolean, { description: "The registrant must complete it." })
  mandatory: boolean;

  @Field(() => FormAudienceEnum, { description: "Who fills it: the registrant (USER) or staff (ADMIN)." })
  audience: FormAudienceEnum;

  @Field(() => FormLevelEnum, { description: "Which registrations of a family project get it." })
  level: FormLevelEnum;
}

@GraphqlObjectType("UserForm", {
  description: "A form in a user's form set. Its id derives from its user and form.",
  implements: Node,
})
export class UserFormType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  /** Whose form set this entry belongs to (not exposed; the missing-fields resolver needs it). */
  uid: number;
  groupId: number;

  @Field(() => FormType, { description: "The form." })
  form: FormType;

  @Field(() => Boolean, { description: "The form is complete." })
  completed: boolean;

  @Field(() => GraphQLDateTime, { description: "When it became complete; null while it is not.", nullable: true })
  completedAt: Date | null;

  @Field(() => GraphQLDateTime, {
    nullable: true,
    description: "Last submission (a submission runs the form's triggers).",
  })
  submittedAt: Date | null;
}
