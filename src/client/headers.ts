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
    if (token !== this.headerToken) {
      this.headerToken = token;
      const base: Record<string, string> = { 'user-agent': this.userAgent, accept: JSON_TYPE };
      if (token !== undefined) base.authorization = `Bearer ${token}`;
      this.bareHeaders = base;
      this.jsonHeaders = { ...base, 'content-type': JSON_TYPE };
      this.integrationToken = undefined;
    }
    if (req.integrationToken !== undefined && req.headers === undefined) {
      if (req.integrationToken !== this.integrationToken) {
        this.integrationToken = req.integrationToken;
        this.integrationHeaders = { ...this.jsonHeaders, 'x-service-integration-token': req.integrationToken };
      }
      return this.integrationHeaders;
    }
    if (!req.auth || req.headers !== undefined || (req.contentType !== undefined && req.contentType !== JSON_TYPE)) {
      const h: Record<string, string> = { 'user-agent': this.userAgent, accept: JSON_TYPE };
      if (req.auth && token !== undefined) h.authorization = `Bearer ${token}`;
      if (req.contentType) h['content-type'] = req.contentType;
      if (req.headers) for (const [k, v] of Object.entries(req.headers)) h[k.toLowerCase()] = v;
      return h;
    }
    return req.contentType === JSON_TYPE ? this.jsonHeaders : this.bareHeaders;
  }
}
