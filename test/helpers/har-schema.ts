/**
 * A JSON Schema of HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): the log, its
 * creator, entries, requests, responses, contents, cache and timings, with the fields the
 * format requires. Custom fields start with `_`, as the format allows.
 */
const pair = {
  type: 'object',
  required: ['name', 'value'],
  properties: { name: { type: 'string' }, value: { type: 'string' }, comment: { type: 'string' } },
};
const custom = { patternProperties: { '^_': {} } };
const creator = {
  type: 'object',
  required: ['name', 'version'],
  properties: { name: { type: 'string' }, version: { type: 'string' }, comment: { type: 'string' } },
  additionalProperties: false,
};
const postData = {
  type: 'object',
  required: ['mimeType'],
  properties: {
    mimeType: { type: 'string' },
    text: { type: 'string' },
    params: { type: 'array', items: { type: 'object', required: ['name'] } },
    comment: { type: 'string' },
  },
};
const request = {
  type: 'object',
  required: ['method', 'url', 'httpVersion', 'cookies', 'headers', 'queryString', 'headersSize', 'bodySize'],
  properties: {
    method: { type: 'string' },
    url: { type: 'string', format: 'uri' },
    httpVersion: { type: 'string' },
    cookies: { type: 'array' },
    headers: { type: 'array', items: pair },
    queryString: { type: 'array', items: pair },
    postData,
    headersSize: { type: 'integer' },
    bodySize: { type: 'integer' },
    comment: { type: 'string' },
  },
  additionalProperties: false,
  ...custom,
};
const content = {
  type: 'object',
  required: ['size', 'mimeType'],
  properties: {
    size: { type: 'integer' },
    compression: { type: 'integer' },
    mimeType: { type: 'string' },
    text: { type: 'string' },
    encoding: { type: 'string' },
    comment: { type: 'string' },
  },
};
const response = {
  type: 'object',
  required: ['status', 'statusText', 'httpVersion', 'cookies', 'headers', 'content', 'redirectURL', 'headersSize', 'bodySize'],
  properties: {
    status: { type: 'integer' },
    statusText: { type: 'string' },
    httpVersion: { type: 'string' },
    cookies: { type: 'array' },
    headers: { type: 'array', items: pair },
    content,
    redirectURL: { type: 'string' },
    headersSize: { type: 'integer' },
    bodySize: { type: 'integer' },
    comment: { type: 'string' },
  },
  additionalProperties: false,
  ...custom,
};
const timings = {
  type: 'object',
  required: ['send', 'wait', 'receive'],
  properties: {
    dns: { type: 'number', minimum: -1 },
    connect: { type: 'number', minimum: -1 },
    blocked: { type: 'number', minimum: -1 },
    send: { type: 'number', minimum: -1 },
    wait: { type: 'number', minimum: -1 },
    receive: { type: 'number', minimum: -1 },
    ssl: { type: 'number', minimum: -1 },
    comment: { type: 'string' },
  },
};
const entry = {
  type: 'object',
  required: ['startedDateTime', 'time', 'request', 'response', 'cache', 'timings'],
  properties: {
    pageref: { type: 'string' },
    startedDateTime: { type: 'string', format: 'date-time' },
    time: { type: 'number', minimum: 0 },
    request,
    response,
    cache: { type: 'object' },
    timings,
    serverIPAddress: { type: 'string' },
    connection: { type: 'string' },
    comment: { type: 'string' },
  },
  additionalProperties: false,
  ...custom,
};

export const HAR_1_2_SCHEMA = {
  type: 'object',
  required: ['log'],
  properties: {
    log: {
      type: 'object',
      required: ['version', 'creator', 'entries'],
      properties: {
        version: { type: 'string', const: '1.2' },
        creator,
        browser: creator,
        pages: { type: 'array' },
        entries: { type: 'array', items: entry },
        comment: { type: 'string' },
      },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
};
