import { graphql } from "./gql";

// The operations a frontend would write. Every object selects its `id`, so Apollo Client's and
// urql's caches normalize them without type policies.

export const UserWithForms = graphql(`
  query UserWithForms($groupId: Int!, $cloginId: Int!) {
    user(groupId: $groupId, cloginId: $cloginId) {
      id
      uid
      cloginId
      name
      metaInfo {
        id
        completedForms
        totalForms
        status {
          id
          name
        }
      }
      forms {
        id
        completed
        form {
          id
          formId
          name
          fields {
            id
            identifier
            label
          }
        }
      }
      fieldValues {
        id
        text
        choices
        field {
          id
          identifier
        }
      }
      children {
        id
        cloginId
      }
    }
  }
`);

export const MarkFormsComplete = graphql(`
  mutation MarkFormsComplete($input: MarkFormsCompleteInput!) {
    markFormsComplete(input: $input) {
      markedComplete
      user {
        id
        metaInfo {
          id
          completedForms
        }
        forms {
          id
          completed
          completedAt
        }
      }
    }
  }
`);

export const UsersPage = graphql(`
  query UsersPage($groupId: Int!, $first: Int, $after: String, $last: Int, $before: String) {
    users(groupId: $groupId, first: $first, after: $after, last: $last, before: $before) {
      edges {
        cursor
        node {
          id
          cloginId
          name
        }
      }
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
    }
  }
`);

export const NodeById = graphql(`
  query NodeById($id: ID!) {
    node(id: $id) {
      __typename
      id
      ... on User {
        cloginId
        metaInfo {
          id
          completedForms
        }
      }
    }
  }
`);

export const ProjectTags = graphql(`
  query ProjectTags($groupId: Int!, $first: Int, $after: String) {
    project(groupId: $groupId) {
      id
      name
      tags(first: $first, after: $after) {
        edges {
          cursor
          node {
            id
            tagId
            name
          }
        }
        pageInfo {
          hasNextPage
          hasPreviousPage
          startCursor
          endCursor
        }
      }
    }
  }
`);

// Live updates (docs/graphql-clients.md#live-updates): over WebSocket with graphql-ws.
export const RegistrationChanged = graphql(`
  subscription RegistrationChanged($groupId: Int!) {
    registrationChanged(groupId: $groupId) {
      eventId
      type
      createdAt
      groupId
      cloginId
      actor
      data
      cursor
    }
  }
`);

export const UserChanged = graphql(`
  subscription UserChanged($groupId: Int!, $cloginId: Int!) {
    userChanged(groupId: $groupId, cloginId: $cloginId) {
      eventId
      type
      cloginId
      data
      cursor
    }
  }
`);

// Events that update caches: the event's `user` selects what the watched queries read, with `id`,
// so Apollo Client and graphcache write it over the cached user and the queries change with no
// refetch.
export const UserCard = graphql(`
  query UserCard($groupId: Int!, $cloginId: Int!) {
    user(groupId: $groupId, cloginId: $cloginId) {
      id
      cloginId
      firstName
      metaInfo {
        id
        updatedAt
      }
      emails {
        id
        subject
      }
    }
  }
`);

export const UserChangedWithUser = graphql(`
  subscription UserChangedWithUser($groupId: Int!, $cloginId: Int!) {
    userChanged(groupId: $groupId, cloginId: $cloginId) {
      eventId
      type
      user {
        id
        cloginId
        firstName
        metaInfo {
          id
          updatedAt
        }
        emails {
          id
          subject
        }
      }
    }
  }
`);

export const RegistrationChangedWithUser = graphql(`
  subscription RegistrationChangedWithUser($groupId: Int!) {
    registrationChanged(groupId: $groupId) {
      eventId
      type
      cloginId
      user {
        id
        cloginId
        firstName
        metaInfo {
          id
          updatedAt
        }
        emails {
          id
          subject
        }
      }
    }
  }
`);
