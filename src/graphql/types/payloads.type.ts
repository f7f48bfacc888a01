import { Field, Int } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import { ProjectType } from "./project.type";
import { StatusType, UserType } from "./user.type";
import { FieldProblemReasonEnum } from "./enums.type";
import type { ProblemReason } from "../../domain/problems";

@GraphqlObjectType("FieldProblem", {
  description:
    "One problem with what was sent, keyed for a form to mark the field: a value that was not written (the call went on without it), or a member of the input that was refused (the call wrote nothing).",
})
export class FieldProblemType {
  @Field(() => String, {
    description:
      "A value not written: the key of `values` as sent (field identifier, mapped name or person key). A refused member: its path under the argument, e.g. `input.emails[1].to`.",
  })
  field: string;

  @Field(() => String, {
    nullable: true,
    description:
      "The value as sent (a string as is, anything else as JSON), cut to 60 characters with …; for UNKNOWN_CHOICE the one answer that was dropped. Null when nothing was sent (REQUIRED), for a secret member (a password), or when the problem is with the input as a whole.",
  })
  value: string | null;

  @Field(() => FieldProblemReasonEnum, { description: "A stable code to switch on." })
  reason: ProblemReason;

  @Field(() => String, {
    description:
      "A sentence for people, without the field's name: for a value not written the same text is among `notices`; for a refused member the REST error answers the same text under `errors`.",
  })
  message: string;
}

/** The answer of a mutation whose input was refused: nothing was written, every problem is listed. */
export type Rejected<Payload> = (problems: FieldProblemType[]) => Payload;

export const REFUSED_INPUT_NOTE =
  "One entry per problem; empty when the call succeeded. When the input itself was refused, the call wrote nothing and the payload's other fields are null or empty.";

@GraphqlObjectType("UserPayload", { description: "The answer of a write to one user." })
export class UserPayloadType {
  static readonly rejected: Rejected<UserPayloadType> = (problems) => ({ user: null, notices: [], problems });

  @Field(() => UserType, {
    nullable: true,
    description: "The user after the change (its metaInfo is the refreshed summary); null when the input was refused.",
  })
  user: UserType | null;

  @Field(() => [String], { description: "Informational notices, e.g. values that were not written and why." })
  notices: string[];

  @Field(() => [FieldProblemType], {
    description:
      "One entry per sent value that was not written, in the order of `notices`; empty when all were written. When the input was refused (the call wrote nothing, `user` is null): one entry per refused member.",
  })
  problems: FieldProblemType[];
}

@GraphqlObjectType("SkippedForm", { description: "A form id of markFormsComplete that was not marked, and why." })
export class SkippedFormType {
  @Field(() => Int, { description: "The form id as sent." })
  formId: number;

  @Field(() => String, { description: "Why it was skipped, e.g. that the form is not in the user's form set." })
  reason: string;
}

@GraphqlObjectType("MarkFormsCompletePayload", { description: "The answer of markFormsComplete." })
export class MarkFormsCompletePayloadType {
  static readonly rejected: Rejected<MarkFormsCompletePayloadType> = (problems) => ({
    markedComplete: [],
    skipped: [],
    notices: [],
    problems,
    user: null,
  });

  @Field(() => [Int], {
    description: "Forms now complete, including ones that already were (nothing changes for those).",
  })
  markedComplete: number[];

  @Field(() => [SkippedFormType], { description: "The form ids that were not marked, each with its reason." })
  skipped: SkippedFormType[];

  @Field(() => [String], {
    description: "Values not written, and one entry per marked form with empty mandatory fields.",
  })
  notices: string[];

  @Field(() => [FieldProblemType], {
    description: "The sent values that were not written, or the refused members of the input, as in UserPayload.",
  })
  problems: FieldProblemType[];

  @Field(() => UserType, { nullable: true, description: "The user after the change; null when the input was refused." })
  user: UserType | null;
}

@GraphqlObjectType("CreateStatusPayload", { description: "The answer of createStatus." })
export class CreateStatusPayloadType {
  static readonly rejected: Rejected<CreateStatusPayloadType> = (problems) => ({
    status: null,
    project: null,
    problems,
  });

  @Field(() => StatusType, { nullable: true, description: "The new status; null when the input was refused." })
  status: StatusType | null;

  @Field(() => ProjectType, {
    nullable: true,
    description:
      "The project after the change, with the new status among its statuses: select them and a normalized cache (Apollo Client, urql graphcache) shows it in project.statuses with no refetch. Null when the input was refused.",
  })
  project: ProjectType | null;

  @Field(() => [FieldProblemType], { description: REFUSED_INPUT_NOTE })
  problems: FieldProblemType[];
}

@GraphqlObjectType("AddProductPayload", { description: "The answer of addProduct." })
export class AddProductPayloadType {
  static readonly rejected: Rejected<AddProductPayloadType> = (problems) => ({
    user: null,
    cartIds: [],
    notices: [],
    problems,
  });

  @Field(() => UserType, { nullable: true, description: "The user after the change; null when the input was refused." })
  user: UserType | null;

  @Field(() => [Int], {
    description: "The new cart lines' legacy cart ids (CartLine.cartLineId); empty when nothing new was added.",
  })
  cartIds: number[];

  @Field(() => [String], {
    description: "Informational notices, e.g. a product that can be ordered once and was not added again.",
  })
  notices: string[];

  @Field(() => [FieldProblemType], { description: REFUSED_INPUT_NOTE })
  problems: FieldProblemType[];
}

@GraphqlObjectType("CreateProductPayload", { description: "The answer of createProduct." })
export class CreateProductPayloadType {
  static readonly rejected: Rejected<CreateProductPayloadType> = (problems) => ({
    productId: null,
    project: null,
    problems,
  });

  @Field(() => Int, { nullable: true, description: "The new product's id; null when the input was refused." })
  productId: number | null;

  @Field(() => ProjectType, {
    nullable: true,
    description:
      "The project after the change, with the new product among its products: select them and a normalized cache (Apollo Client, urql graphcache) shows it in project.products with no refetch. Null when the input was refused.",
  })
  project: ProjectType | null;

  @Field(() => [FieldProblemType], { description: REFUSED_INPUT_NOTE })
  problems: FieldProblemType[];
}

@GraphqlObjectType("CreateCategoryPayload", { description: "The answer of createCategory." })
export class CreateCategoryPayloadType {
  static readonly rejected: Rejected<CreateCategoryPayloadType> = (problems) => ({
    categoryId: null,
    project: null,
    problems,
  });

  @Field(() => Int, { nullable: true, description: "The new category's id; null when the input was refused." })
  categoryId: number | null;

  @Field(() => ProjectType, {
    nullable: true,
    description:
      "The project after the change, with the new category among its categories: select them and a normalized cache (Apollo Client, urql graphcache) shows it in project.categories with no refetch. Null when the input was refused.",
  })
  project: ProjectType | null;

  @Field(() => [FieldProblemType], { description: REFUSED_INPUT_NOTE })
  problems: FieldProblemType[];
}

@GraphqlObjectType("RemoveCartLinePayload", { description: "The answer of removeCartLine and removeMyCartLine." })
export class RemoveCartLinePayloadType {
  static readonly rejected: Rejected<RemoveCartLinePayloadType> = (problems) => ({
    user: null,
    removedCartLineId: null,
    problems,
  });

  @Field(() => UserType, {
    nullable: true,
    description:
      "The user after the change (select cartLines and metaInfo to update a cache); null when the input was refused.",
  })
  user: UserType | null;

  @Field(() => Int, { nullable: true, description: "The line removed; null when the input was refused." })
  removedCartLineId: number | null;

  @Field(() => [FieldProblemType], { description: REFUSED_INPUT_NOTE })
  problems: FieldProblemType[];
}
