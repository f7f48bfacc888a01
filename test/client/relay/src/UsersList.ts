import { graphql } from "./graphql-tag";

// A paginated list of a project's users: @connection needs a connection type of Relay's cursor
// specification (edges { cursor node }, pageInfo, first/after); usePaginationFragment would load
// more with UsersListPaginationQuery.
export const UsersListFragment = graphql`
  fragment UsersList_query on Query
  @argumentDefinitions(groupId: { type: "Int!" }, count: { type: "Int", defaultValue: 2 }, cursor: { type: "String" })
  @refetchable(queryName: "UsersListPaginationQuery") {
    users(groupId: $groupId, first: $count, after: $cursor) @connection(key: "UsersList_users") {
      edges {
        node {
          id
          ...UserCard_user
        }
      }
    }
  }
`;

export const UsersListQuery = graphql`
  query UsersListQuery($groupId: Int!) {
    ...UsersList_query @arguments(groupId: $groupId)
  }
`;
