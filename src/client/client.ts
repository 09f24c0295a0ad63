/**
 * The embedded API client: the ApiClient of types.ts as a thin facade over the request pipeline
 * (pipeline.ts: token, retries, 401 replay, deprecation, trace) and the endpoint functions, one
 * module per resource.
 */
import { OPERATION_SCOPES, type Operation } from '../contract/scopes.js';
import type { Contact, ContactListFilter, ContactWrite, EventAccepted, EventInput, Order, OrderInput } from '../contract/types.js';
import { AnswerLedger } from './answer-identity.js';
import type { TokenProvider } from './auth.js';
import * as contacts from './contacts.js';
import { MissingScopeError } from './errors.js';
import { sendEvent } from './events.js';
import { upsertOrder } from './orders.js';
import { type PipelineOptions, RequestPipeline } from './pipeline.js';
import { rawRequest } from './raw-request.js';
import type { ApiClient, ApiResult, CallOptions, ContactPageResult, RawRequest } from './types.js';

export interface ServiceClientOptions extends PipelineOptions {
  /** Called once when the client closes. */
  onClose?: () => Promise<void>;
}

export class ServiceClient implements ApiClient {
  readonly baseUrl: string;
  /** The token provider (the auth commands read the granted scopes and expiry from it). */
  readonly tokens: TokenProvider;
  private readonly pipeline: RequestPipeline;
  /** The event ids answered to this client (one run): an id answered twice belongs to another request. */
  private readonly eventIds = new AnswerLedger();
  private readonly onClose?: () => Promise<void>;
  private closed = false;

  constructor(opts: ServiceClientOptions) {
    this.pipeline = new RequestPipeline(opts);
    this.baseUrl = this.pipeline.baseUrl;
    this.tokens = this.pipeline.tokens;
    this.onClose = opts.onClose;
  }
  /** The proxy requests to the service go through (scheme, host and port, never its credentials), or undefined. */
  get proxy(): string | undefined {
    return this.pipeline.proxy;
  }

  listContacts(filter: ContactListFilter & { limit?: number; cursor?: string }, opts?: CallOptions): Promise<ContactPageResult> {
    return contacts.listContacts(this.pipeline, filter, opts);
  }

  paginateContacts(filter: ContactListFilter, opts?: CallOptions & { pageSize?: number }): AsyncIterable<Contact[]> {
    return contacts.paginateContacts(this.pipeline, filter, opts);
  }

  getContact(id: string, opts?: CallOptions): Promise<Contact> {
    return contacts.getContact(this.pipeline, id, opts);
  }

  createContact(body: ContactWrite, opts?: CallOptions): Promise<ApiResult<Contact>> {
    return contacts.createContact(this.pipeline, body, opts);
  }

  patchContact(id: string, body: ContactWrite, opts?: CallOptions): Promise<ApiResult<Contact>> {
    return contacts.patchContact(this.pipeline, id, body, opts);
  }

  unsubscribeContactLegacy(id: string, opts?: CallOptions): Promise<ApiResult<Contact>> {
    return contacts.unsubscribeContactLegacy(this.pipeline, id, opts);
  }

  deleteContact(id: string, opts?: CallOptions): Promise<void> {
    return contacts.deleteContact(this.pipeline, id, opts);
  }

  upsertOrder(order: OrderInput, opts?: CallOptions & { integrationToken?: string }): Promise<ApiResult<Order>> {
    return upsertOrder(this.pipeline, order, opts);
  }

  sendEvent(event: EventInput, opts?: CallOptions): Promise<ApiResult<EventAccepted>> {
    return sendEvent(this.pipeline, event, opts, this.eventIds);
  }

  request(req: RawRequest): Promise<ApiResult<unknown>> {
    return rawRequest(this.pipeline, req);
  }

  async ensureScope(operation: Operation): Promise<void> {
    const scope = OPERATION_SCOPES[operation];
    if (this.tokens.kind !== 'client_credentials') return;
    await this.tokens.get();
    const granted = this.tokens.grantedScopes();
    if (granted && !granted.includes(scope)) throw new MissingScopeError(scope, granted);
  }

  serviceAnswered(): Promise<boolean> {
    return this.pipeline.firstAnswer.wait();
  }

  /** A valid bearer token (renewed if needed), for `svc auth token`. */
  accessToken(signal?: AbortSignal): Promise<string> {
    return this.tokens.get(signal);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pipeline.close();
    await this.onClose?.();
  }
}
