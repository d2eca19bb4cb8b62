/** This package's version (kept equal to package.json's by a test), sent in the User-Agent. */
export const SDK_VERSION = '0.1.0';
