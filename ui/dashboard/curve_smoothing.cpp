// placeholder: replaced by the dashboard work
