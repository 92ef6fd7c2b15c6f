"""Reader proof harness (issue 14): plain Spark readers, in the writer's session and in another driver, check every
read against a model of the table versions the writer's statements make."""
