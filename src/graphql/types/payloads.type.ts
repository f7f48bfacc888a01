import { Field, Int, ObjectType } from "type-graphql";
import { StatusType, UserType } from "./user.type";

@ObjectType("UserPayload")
export class UserPayloadType {
  @Field(() => UserType, { description: "The user after the change (its metaInfo is the refreshed summary)." })
  user: UserType;

  @Field(() => [String], { description: "Informational notices, e.g. values that were not written and why." })
  notices: string[];
}

@ObjectType("SkippedForm")
export class SkippedFormType {
  @Field(() => String, { description: "The id as sent." })
  formId: string;

  @Field(() => String)
  reason: string;
}

@ObjectType("MarkFormsCompletePayload")
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

@ObjectType("CreateStatusPayload")
export class CreateStatusPayloadType {
  @Field(() => StatusType)
  status: StatusType;
}
