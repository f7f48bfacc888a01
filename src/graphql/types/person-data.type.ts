import { Field, InputType, Int } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import { FieldProblemType, REFUSED_INPUT_NOTE, type Rejected } from "./payloads.type";

@InputType("ErasePersonInput", {
  description: "The person to erase (GDPR), named by cloginId; groupId names the project the call acts through.",
})
export class ErasePersonInput {
  @Field(() => Int, { description: "Any project of your organization; the person is erased in all of them." })
  groupId: number;

  @Field(() => Int, { description: "The person (clogin_id) to erase, in every project of the organization." })
  cloginId: number;
}

@GraphqlObjectType("PersonErasureCounts", { description: "Rows an erasure removed or anonymized, by kind." })
export class PersonErasureCountsType {
  @Field(() => Int, { description: "Form answers removed." }) fieldValues: number;
  @Field(() => Int, { description: "Form states of the registrations removed." }) forms: number;
  @Field(() => Int, { description: "Recorded emails (email history)." }) emails: number;
  @Field(() => Int, { description: "Emails sent or queued by triggers (the outbox)." }) emailsSent: number;
  @Field(() => Int, { description: "Tag assignments removed." }) tags: number;
  @Field(() => Int, { description: "Staff comments on the person's registrations." }) comments: number;
  @Field(() => Int, { description: "Registrant sessions and login tokens." }) sessions: number;
  @Field(() => Int, { description: "Records of triggers fired for the registrations." }) triggerFirings: number;
  @Field(() => Int, { description: "Cart lines kept with their amounts; their remarks removed." })
  cartLinesAnonymized: number;
  @Field(() => Int, { description: "Payments kept with their amounts; their notes removed." })
  paymentsAnonymized: number;
  @Field(() => Int, { description: "Stored events (the webhook and feed payloads) reduced to the person's id." })
  eventsScrubbed: number;
  @Field(() => Int, { description: "Stored Idempotency-Key answers that mentioned the person." })
  idempotencyAnswersRemoved: number;
}

@GraphqlObjectType("ErasePersonPayload", { description: "The answer of erasePerson." })
export class ErasePersonPayloadType {
  static readonly rejected: Rejected<ErasePersonPayloadType> = (problems) => ({
    cloginId: null,
    groupIds: [],
    erased: null,
    problems,
  });

  @Field(() => Int, { nullable: true, description: "The person erased; null when the input was refused." })
  cloginId: number | null;

  @Field(() => [Int], { description: "The projects the person was registered in; each got a person.erased event." })
  groupIds: number[];

  @Field(() => PersonErasureCountsType, {
    nullable: true,
    description: "What was removed or anonymized; null when the input was refused.",
  })
  erased: PersonErasureCountsType | null;

  @Field(() => [FieldProblemType], { description: REFUSED_INPUT_NOTE })
  problems: FieldProblemType[];
}
