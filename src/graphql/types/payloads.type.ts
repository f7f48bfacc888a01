import { Field, Int } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import { StatusType, UserType } from "./user.type";
import { FieldProblemReasonEnum } from "./enums.type";
import type { ValueProblemReason } from "../../domain/forms/value-problems";

@GraphqlObjectType("FieldProblem", {
  description: "One sent value that was not written (the call went on without it), keyed for a form to mark the field.",
})
export class FieldProblemType {
  @Field(() => String, { description: "The key of `values` as sent: field identifier, mapped name or person key." })
  field: string;

  @Field(() => String, {
    description:
      "The value as sent (a string as is, anything else as JSON), cut to 60 characters with …; for UNKNOWN_CHOICE the one answer that was dropped.",
  })
  value: string;

  @Field(() => FieldProblemReasonEnum)
  reason: ValueProblemReason;

  @Field(() => String, { description: "A sentence for people; the same text is among `notices`." })
  message: string;
}

@GraphqlObjectType("UserPayload")
export class UserPayloadType {
  @Field(() => UserType, { description: "The user after the change (its metaInfo is the refreshed summary)." })
  user: UserType;

  @Field(() => [String], { description: "Informational notices, e.g. values that were not written and why." })
  notices: string[];

  @Field(() => [FieldProblemType], {
    description:
      "One entry per sent value that was not written, in the order of `notices`; empty when all were written.",
  })
  problems: FieldProblemType[];
}

@GraphqlObjectType("SkippedForm")
export class SkippedFormType {
  @Field(() => Int, { description: "The form id as sent." })
  formId: number;

  @Field(() => String)
  reason: string;
}

@GraphqlObjectType("MarkFormsCompletePayload")
export class MarkFormsCompletePayloadType {
  @Field(() => [Int], {
    description: "Forms now complete, including ones that already were (nothing changes for those).",
  })
  markedComplete: number[];

  @Field(() => [SkippedFormType])
  skipped: SkippedFormType[];

  @Field(() => [String], {
    description: "Values not written, and one entry per marked form with empty mandatory fields.",
  })
  notices: string[];

  @Field(() => [FieldProblemType], { description: "The sent values that were not written, as in UserPayload." })
  problems: FieldProblemType[];

  @Field(() => UserType)
  user: UserType;
}

@GraphqlObjectType("CreateStatusPayload")
export class CreateStatusPayloadType {
  @Field(() => StatusType)
  status: StatusType;
}

@GraphqlObjectType("AddProductPayload")
export class AddProductPayloadType {
  @Field(() => UserType, { description: "The user after the change." })
  user: UserType;

  @Field(() => [Int], {
    description: "The new cart lines' legacy cart ids (CartLine.cartLineId); empty when nothing new was added.",
  })
  cartIds: number[];

  @Field(() => [String])
  notices: string[];
}

@GraphqlObjectType("CreateProductPayload")
export class CreateProductPayloadType {
  @Field(() => Int)
  productId: number;
}

@GraphqlObjectType("CreateCategoryPayload")
export class CreateCategoryPayloadType {
  @Field(() => Int)
  categoryId: number;
}
