import { graphql } from "./graphql-tag";

// A User as a Relay component reads it: @refetchable makes UserCardRefetchQuery, which refetches
// the user through Query.node(id). It compiles only if User implements Node and node(id) exists.
export const UserCardFragment = graphql`
  fragment UserCard_user on User @refetchable(queryName: "UserCardRefetchQuery") {
    id
    cloginId
    name
  }
`;
