/**
 * The request headers of a pipeline. The usual request (authenticated, JSON or no body, no extra
 * headers) reuses one header object per token and content type, and one per integration token,
 * so that a bulk run builds no header object per request; anything else gets its own.
 */
export const JSON_TYPE = 'application/json';

/** What of a request decides its headers (a SendRequest has these). */
export interface HeaderInputs {
  auth: boolean;
  contentType?: string;
  headers?: Record<string, string>;
  integrationToken?: string;
}

export class RequestHeaders {
  private headerToken: string | undefined;
  private jsonHeaders: Record<string, string> = {};
  private bareHeaders: Record<string, string> = {};
  private integrationToken: string | undefined;
  private integrationHeaders: Record<string, string> = {};

  constructor(private readonly userAgent: string) {}

  for(req: HeaderInputs, token: string | undefined): Record<string, string> {
    if (token !== this.headerToken) this.useToken(token);
    if (req.integrationToken !== undefined && req.headers === undefined) return this.withIntegrationToken(req.integrationToken);
    if (!req.auth || req.headers !== undefined || (req.contentType !== undefined && req.contentType !== JSON_TYPE)) {
      return this.ownHeaders(req, token);
    }
    return req.contentType === JSON_TYPE ? this.jsonHeaders : this.bareHeaders;
  }

  /** A new token: the shared header objects are built again for it. */
  private useToken(token: string | undefined): void {
    this.headerToken = token;
    const base: Record<string, string> = { 'user-agent': this.userAgent, accept: JSON_TYPE };
    if (token !== undefined) base.authorization = `Bearer ${token}`;
    this.bareHeaders = base;
    this.jsonHeaders = { ...base, 'content-type': JSON_TYPE };
    this.integrationToken = undefined;
  }

  private withIntegrationToken(integrationToken: string): Record<string, string> {
    if (integrationToken !== this.integrationToken) {
      this.integrationToken = integrationToken;
      this.integrationHeaders = { ...this.jsonHeaders, 'x-service-integration-token': integrationToken };
    }
    return this.integrationHeaders;
  }

  /** An unusual request's own header object (no auth, another content type, or extra headers). */
  private ownHeaders(req: HeaderInputs, token: string | undefined): Record<string, string> {
    const h: Record<string, string> = { 'user-agent': this.userAgent, accept: JSON_TYPE };
    if (req.auth && token !== undefined) h.authorization = `Bearer ${token}`;
    if (req.contentType) h['content-type'] = req.contentType;
    if (req.headers) for (const [k, v] of Object.entries(req.headers)) h[k.toLowerCase()] = v;
    return h;
  }
}
