/** The client capabilities that server→client requests need. */
export type ClientRequestCapability = 'elicitation' | 'sampling' | 'roots';

/** The capability each server→client request method needs (a client that did not declare it cannot be asked). */
export const CAPABILITY_FOR_CLIENT_REQUEST: Readonly<Record<string, ClientRequestCapability>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};
