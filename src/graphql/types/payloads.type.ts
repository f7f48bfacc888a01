import { Field, Int } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import { StatusType, UserType } from "./user.type";

@GraphqlObjectType("UserPayload")
export class UserPayloadType {
  @Field(() => UserType, { description: "The user after the change (its metaInfo is the refreshed summary)." })
  user: UserType;

  @Field(() => [String], { description: "Informational notices, e.g. values that were not written and why." })
  notices: string[];
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
