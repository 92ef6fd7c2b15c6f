"""Many drivers on one catalog: which Spark session a driver joins (:mod:`~ddl_log.cluster.driver_session`), the
metadata locks shared with other drivers (:mod:`~ddl_log.cluster.locks`) and the takeover of dead drivers' homes
(:mod:`~ddl_log.cluster.takeover`). The homes, leases and advisory locks themselves are records in
:mod:`storage.records`."""
