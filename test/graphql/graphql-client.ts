// The GraphQL helpers moved to test/support/graphql.ts; test/parity (owned apart) still imports them from here.
export { graphql, graphqlData, type GraphqlResponse } from "../support/graphql";
