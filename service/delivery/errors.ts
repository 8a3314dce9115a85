// How a transport tells its worker not to retry a delivery.

/**
 * The receiving side refused this message for good (an SMTP 5xx answer to it, an SMS gateway's 4xx): the
 * worker marks it dead at once instead of retrying. Any other error is temporary.
 */
export class PermanentDeliveryError extends Error {}
