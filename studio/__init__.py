"""The authoring studio: views, forms, validation and regrade services and tasks, the admin."""
