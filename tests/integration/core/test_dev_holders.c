/*
 * test_dev_holders.c - doca_dev_close refused with IN_USE names what still holds the
 * device, across layers: a DOCA Flow port and a DPA context opened on one device
 * (issue 12), and says less as each is destroyed.
 */
#include <stdio.h>
#include <string.h>

#include <doca_dev.h>
#include <doca_dpa.h>
#include <doca_flow.h>
#include <doca_log.h>

static char log_buf[1024];
static char last_err[1024];
static int nb_err;

static void log_flush(char *line)
{
	if (strstr(line, "[ERR]") == NULL)
		return;
	snprintf(last_err, sizeof(last_err), "%s", line);
	nb_err++;
}

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
			return 1;                                                     \
		}                                                                     \
	} while (0)

/* doca_dev_close refused with one error line holding want. */
static int close_refused(struct doca_dev *dev, const char *want)
{
	nb_err = 0;
	if (doca_dev_close(dev) != DOCA_ERROR_IN_USE || nb_err != 1 || strstr(last_err, want) == NULL) {
		fprintf(stderr, "doca_dev_close: %d error line(s), last: %s\nwanted: %s\n", nb_err, last_err, want);
		return 1;
	}
	return 0;
}

int main(void)
{
	struct doca_log_backend *be;
	struct doca_devinfo **list;
	struct doca_dev *dev;
	struct doca_flow_cfg *cfg;
	struct doca_flow_port_cfg *pc;
	struct doca_flow_port *port;
	struct doca_dpa *dpa;
	uint32_t n;

	CHECK(doca_log_backend_create_with_buf_sdk(log_buf, sizeof(log_buf), log_flush, &be) == DOCA_SUCCESS);
	CHECK(doca_devinfo_create_list(&list, &n) == DOCA_SUCCESS && n >= 1);
	CHECK(doca_dev_open(list[0], &dev) == DOCA_SUCCESS);
	CHECK(doca_devinfo_destroy_list(list) == DOCA_SUCCESS);

	CHECK(doca_flow_cfg_create(&cfg) == DOCA_SUCCESS);
	CHECK(doca_flow_cfg_set_pipe_queues(cfg, 1) == DOCA_SUCCESS);
	CHECK(doca_flow_cfg_set_mode_args(cfg, "vnf,hws") == DOCA_SUCCESS);
	CHECK(doca_flow_init(cfg) == DOCA_SUCCESS);
	CHECK(doca_flow_cfg_destroy(cfg) == DOCA_SUCCESS);
	CHECK(doca_flow_port_cfg_create(&pc) == DOCA_SUCCESS);
	CHECK(doca_flow_port_cfg_set_port_id(pc, 0) == DOCA_SUCCESS);
	CHECK(doca_flow_port_cfg_set_dev(pc, dev) == DOCA_SUCCESS);
	CHECK(doca_flow_port_start(pc, &port) == DOCA_SUCCESS);
	CHECK(doca_flow_port_cfg_destroy(pc) == DOCA_SUCCESS);
	CHECK(doca_dpa_create(dev, &dpa) == DOCA_SUCCESS);

	CHECK(close_refused(dev, "device mlx5_0 is still used by: doca_flow port 0, doca_dpa context 1; destroy them "
				 "first") == 0);
	CHECK(doca_dpa_destroy(dpa) == DOCA_SUCCESS);
	CHECK(close_refused(dev, "device mlx5_0 is still used by: doca_flow port 0; destroy them first") == 0);
	CHECK(doca_flow_port_stop(port) == DOCA_SUCCESS);
	doca_flow_destroy();
	nb_err = 0;
	CHECK(doca_dev_close(dev) == DOCA_SUCCESS && nb_err == 0);
	printf("doca_dev_close names its holders: ok\n");
	return 0;
}
