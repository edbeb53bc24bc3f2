/*
 * error.c - names and descriptions of doca_error_t codes.
 *
 * A table indexed by the code keeps the two strings of a code side by side, so a new
 * code cannot get a name without a description.
 */
#include <doca_error.h>

#include <stddef.h>

struct error_text {
	const char *name;
	const char *descr;
};

#define ERROR_TEXT(code, text) [code] = {#code, text}

static const struct error_text error_texts[] = {
	ERROR_TEXT(DOCA_SUCCESS, "Success"),
	ERROR_TEXT(DOCA_ERROR_UNKNOWN, "Unknown failure"),
	ERROR_TEXT(DOCA_ERROR_NOT_PERMITTED, "Operation not permitted"),
	ERROR_TEXT(DOCA_ERROR_IN_USE, "Resource is in use"),
	ERROR_TEXT(DOCA_ERROR_NOT_SUPPORTED, "Operation or capability not supported"),
	ERROR_TEXT(DOCA_ERROR_AGAIN, "Resource temporarily unavailable, try again"),
	ERROR_TEXT(DOCA_ERROR_INVALID_VALUE, "Invalid input value"),
	ERROR_TEXT(DOCA_ERROR_NO_MEMORY, "Memory allocation failed"),
	ERROR_TEXT(DOCA_ERROR_INITIALIZATION, "Initialization failed"),
	ERROR_TEXT(DOCA_ERROR_TIME_OUT, "Timed out"),
	ERROR_TEXT(DOCA_ERROR_SHUTDOWN, "Shut down or shutting down"),
	ERROR_TEXT(DOCA_ERROR_CONNECTION_RESET, "Connection reset by peer"),
	ERROR_TEXT(DOCA_ERROR_CONNECTION_ABORTED, "Connection aborted"),
	ERROR_TEXT(DOCA_ERROR_CONNECTION_INPROGRESS, "Connection in progress"),
	ERROR_TEXT(DOCA_ERROR_NOT_CONNECTED, "Not connected"),
	ERROR_TEXT(DOCA_ERROR_NO_LOCK, "Unable to acquire a required lock"),
	ERROR_TEXT(DOCA_ERROR_NOT_FOUND, "Resource not found"),
	ERROR_TEXT(DOCA_ERROR_IO_FAILED, "Input/output operation failed"),
	ERROR_TEXT(DOCA_ERROR_BAD_STATE, "Object is in a state that does not allow this call"),
	ERROR_TEXT(DOCA_ERROR_UNSUPPORTED_VERSION, "Version not supported"),
	ERROR_TEXT(DOCA_ERROR_OPERATING_SYSTEM, "Operating system call failed"),
	ERROR_TEXT(DOCA_ERROR_DRIVER, "Driver call failed"),
	ERROR_TEXT(DOCA_ERROR_UNEXPECTED, "Unexpected condition"),
	ERROR_TEXT(DOCA_ERROR_ALREADY_EXIST, "Resource already exists"),
	ERROR_TEXT(DOCA_ERROR_FULL, "No room left"),
	ERROR_TEXT(DOCA_ERROR_EMPTY, "Nothing available"),
	ERROR_TEXT(DOCA_ERROR_IN_PROGRESS, "Operation still in progress"),
	ERROR_TEXT(DOCA_ERROR_TOO_BIG, "Request is too big"),
	ERROR_TEXT(DOCA_ERROR_AUTHENTICATION, "Authentication failed"),
	ERROR_TEXT(DOCA_ERROR_BAD_CONFIG, "Invalid configuration"),
	ERROR_TEXT(DOCA_ERROR_SKIPPED, "Result is valid but some earlier output was skipped"),
};

static const char unrecognized[] = "unrecognized error code";

static const struct error_text *error_lookup(doca_error_t error)
{
	/* Compare as unsigned so that negative values from casts fall outside too. */
	if ((unsigned int)error >= sizeof(error_texts) / sizeof(error_texts[0]))
		return NULL;
	return &error_texts[error];
}

DOCA_STABLE const char *doca_error_get_name(doca_error_t error)
{
	const struct error_text *t = error_lookup(error);

	return t ? t->name : unrecognized;
}

DOCA_STABLE const char *doca_error_get_descr(doca_error_t error)
{
	const struct error_text *t = error_lookup(error);

	return t ? t->descr : unrecognized;
}
