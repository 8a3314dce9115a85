// What every worker that claims jobs under a lease (lease_owner, lease_until) does when the lease is gone.

/**
 * The lease of the job being worked on was taken over or ran out (the worker stalled, another took the job
 * over): the worker stops that job and writes nothing more for it. `job` names it ("import 5").
 */
export class LeaseLostError extends Error {
  constructor(job: string, detail = "the lease was lost") {
    super(`${job}: ${detail}`);
    this.name = "LeaseLostError";
  }
}
