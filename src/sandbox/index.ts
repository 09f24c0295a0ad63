/** Programmatic entry of the sandbox. Lands with the sandbox issue. */
export {};
