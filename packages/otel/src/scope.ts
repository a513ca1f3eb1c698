/** The instrumentation scope every meter and tracer of this package is named by; a test keeps the version equal to package.json's. */
export const INSTRUMENTATION_SCOPE = '@queueport/otel';
export const INSTRUMENTATION_VERSION = '0.1.0';
