export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface TransportRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: Query;
  readonly body?: unknown;
  /** Defaults to application/json when there is a body. */
  readonly contentType?: string;
  /**
   * The Accept header; default application/json. E.g.
   * `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1` for a metadata-only list.
   */
  readonly accept?: string;
  readonly signal?: AbortSignal;
  /**
   * Extra headers (lower-case names), e.g. the W3C `traceparent` of a traced request. They cannot
   * replace the ones the transport sets (credentials, accept, user agent, content type and length).
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Observes every answer, e.g. to count 403s in an RBAC test. */
export type ResponseObserver = (method: string, path: string, statusCode: number) => void;

/** What the clients and the runtime need of the API server (`Transport` in transport.ts). */
export interface ApiTransport {
  /** One request; resolves with the parsed JSON answer, rejects with ApiError on status >= 400. */
  request<T>(req: TransportRequest): Promise<T>;
  /**
   * A streaming GET (watch): calls onLine for every JSON line until the server closes the stream or
   * the signal aborts it (then it resolves). Rejects with ApiError when the server refuses the
   * request. `onOpen` is called once the server has accepted the stream.
   */
  stream(req: TransportRequest, onLine: (line: string) => void, onOpen?: () => void): Promise<void>;
  /**
   * A list request whose items are decoded while the answer arrives (list-decoder.ts) and handed to
   * `onItems` in batches, in order; resolves with the rest of the answer (its `items` emptied),
   * rejects as `request` does (a throw from onItems rejects it too). Optional: where a transport
   * lacks it, callers use `request` and take the items from the answer.
   */
  requestItems?(req: TransportRequest, onItems: (items: unknown[]) => void): Promise<unknown>;
  /** Releases connections (idle keep-alive sockets). */
  close(): void;
}
