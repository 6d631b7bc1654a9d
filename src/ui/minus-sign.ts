/**
 * A number's minus as the page and the docs write it (−0.017), where the report's text, which the
 * CLI prints and the CSV export writes for other programs to read, has ASCII's hyphen (-0.017).
 * Only a hyphen that starts a number is replaced: at the start, or after a space, "[", "(" or ",".
 */
export const minusSigns = (text: string): string => text.replace(/(^|[\s[(,])-(?=\d|\.\d)/g, '$1−');
