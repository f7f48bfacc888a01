import { GraphQLDateTime } from "graphql-scalars";
import { Field } from "type-graphql";
import { GraphqlObjectType } from "./object-type";

@GraphqlObjectType("SessionRefresh", {
  description: "A registrant session after refreshSession; the token is unchanged.",
})
export class SessionRefreshType {
  @Field(() => GraphQLDateTime, {
    description: "When the session now ends unless refreshed again: 12 hours from the refresh, at most endsAtLatest.",
  })
  expiresAt: Date;

  @Field(() => GraphQLDateTime, {
    description: "7 days after the session was opened: no refresh moves it past this; then log in again.",
  })
  endsAtLatest: Date;
}
